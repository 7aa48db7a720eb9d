package dev.capstan.release.file;

import dev.capstan.common.StrictMap;
import dev.capstan.release.model.ConfigMapSpec;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** A ConfigMap of {@code spec.configMaps}, bound before it is a {@link ConfigMapSpec}. */
record ConfigMapDoc(
    @Nullable String name,
    @Nullable String namespace,
    Map<String, String> data,
    Map<String, String> labels,
    Map<String, String> annotations) {

  static ConfigMapDoc read(StrictMap m) {
    return new ConfigMapDoc(
        m.optionalString("name"),
        m.optionalString("namespace"),
        m.stringMap("data"),
        m.stringMap("labels"),
        m.stringMap("annotations"));
  }

  ConfigMapSpec toSpec(String defaultNamespace) {
    return new ConfigMapSpec(
        namespace == null ? defaultNamespace : namespace,
        DocValues.required(name, "name"),
        new TreeMap<>(data),
        new TreeMap<>(labels),
        new TreeMap<>(annotations));
  }

  /** The fields of one element. */
  static final Set<String> FIELDS =
      StrictMap.fields("name", "namespace", "data", "labels", "annotations");
}
