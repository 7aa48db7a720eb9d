package dev.capstan.release.memory;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A namespace: its identity and the labels and annotations each field manager holds, as server-side
 * apply keeps them (a value is one manager's or shared by managers that applied the same value; a
 * forced apply of another value takes it from them).
 */
final class NamespaceState {
  final String uid;
  long version;
  final Map<String, Map<String, String>> labels = new TreeMap<>();
  final Map<String, Map<String, String>> annotations = new TreeMap<>();

  NamespaceState(long version) {
    this.uid = "uid-ns-" + version;
    this.version = version;
  }

  void apply(
      String manager, Map<String, String> labels, Map<String, String> annotations, long version) {
    set(this.labels, manager, labels);
    set(this.annotations, manager, annotations);
    this.version = version;
  }

  private static void set(
      Map<String, Map<String, String>> fields, String manager, Map<String, String> values) {
    fields.remove(manager);
    for (Map<String, String> other : fields.values()) {
      // a forced apply of another value takes the field; the same value is shared
      values.forEach(
          (key, value) -> {
            if (other.containsKey(key) && !value.equals(other.get(key))) {
              other.remove(key);
            }
          });
    }
    fields.values().removeIf(Map::isEmpty);
    if (!values.isEmpty()) {
      fields.put(manager, new TreeMap<>(values));
    }
  }

  Set<String> managers() {
    Set<String> out = new TreeSet<>(labels.keySet());
    out.addAll(annotations.keySet());
    return out;
  }

  List<String> ensuredBy() {
    List<String> out = new ArrayList<>();
    for (String m : managers()) {
      EnsuredNamespace.releaseOf(m).ifPresent(out::add);
    }
    return out;
  }

  Manifest manifest(String name) {
    Map<String, String> allLabels = new TreeMap<>();
    allLabels.put("kubernetes.io/metadata.name", name);
    this.labels.values().forEach(allLabels::putAll);
    Map<String, String> allAnnotations = new TreeMap<>();
    this.annotations.values().forEach(allAnnotations::putAll);
    Map<String, Object> metadata = new java.util.LinkedHashMap<>();
    metadata.put("name", name);
    metadata.put("labels", allLabels);
    if (!allAnnotations.isEmpty()) {
      metadata.put("annotations", allAnnotations);
    }
    return Manifest.of(Map.of("apiVersion", "v1", "kind", "Namespace", "metadata", metadata));
  }
}
