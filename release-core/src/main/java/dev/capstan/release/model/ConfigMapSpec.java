package dev.capstan.release.model;

import dev.capstan.release.internal.Copies;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * A configuration map of text values.
 *
 * @param namespace the namespace
 * @param name the configmap's name
 * @param data the values by key
 * @param labels user labels
 * @param annotations user annotations
 */
public record ConfigMapSpec(
    String namespace,
    String name,
    SortedMap<String, String> data,
    SortedMap<String, String> labels,
    SortedMap<String, String> annotations)
    implements ResourceSpec {

  /** Validates the name and keys. */
  public ConfigMapSpec {
    ResourceRef.of(Kind.CONFIG_MAP, namespace, name);
    String at = "configmap " + namespace + "/" + name + ": ";
    data = Copies.sortedMap(data, at + "data");
    SecretSpec.checkKeys(data.keySet(), at);
    labels = Copies.metadata(labels, at + "labels", true);
    annotations = Copies.metadata(annotations, at + "annotations", false);
  }

  /** A configmap with the given data and no labels. */
  public static ConfigMapSpec of(String namespace, String name, Map<String, String> data) {
    return new ConfigMapSpec(
        namespace,
        name,
        Copies.sortedMap(data, "data"),
        Copies.sortedMap(Map.of(), "labels"),
        Copies.sortedMap(Map.of(), "annotations"));
  }

  @Override
  public ResourceRef ref() {
    return ResourceRef.of(Kind.CONFIG_MAP, namespace, name);
  }

  @Override
  public java.util.List<Manifest> render() {
    return java.util.List.of(TypedRendering.configMap(this));
  }

  /** A copy with {@code key} set to {@code value}. */
  public ConfigMapSpec with(String key, String value) {
    Map<String, String> copy = new LinkedHashMap<>(data);
    copy.put(key, value);
    return new ConfigMapSpec(namespace, name, Copies.sortedMap(copy, "data"), labels, annotations);
  }
}
