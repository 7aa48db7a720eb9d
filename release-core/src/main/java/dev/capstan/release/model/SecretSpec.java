package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.internal.Copies;
import dev.capstan.release.internal.Names;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.regex.Pattern;

/**
 * A secret. Its values are {@link SecretValue}s, which never print: {@link #toString()} lists the
 * keys only.
 *
 * @param namespace the namespace
 * @param name the secret's name
 * @param secretType the secret type, e.g. {@code Opaque} or {@code kubernetes.io/tls}
 * @param data the values by key
 * @param labels user labels
 * @param annotations user annotations
 */
public record SecretSpec(
    String namespace,
    String name,
    String secretType,
    SortedMap<String, SecretValue> data,
    SortedMap<String, String> labels,
    SortedMap<String, String> annotations)
    implements ResourceSpec {

  static final Pattern DATA_KEY = Pattern.compile("[-._a-zA-Z0-9]+");

  /** Validates the name, type and keys. */
  public SecretSpec {
    ResourceRef.of(Kind.SECRET, namespace, name);
    String at = "secret " + namespace + "/" + name + ": ";
    Names.requireText(secretType, at + "secretType");
    data = Copies.sortedMap(data, at + "data");
    checkKeys(data.keySet(), at);
    labels = Copies.metadata(labels, at + "labels", true);
    annotations = Copies.metadata(annotations, at + "annotations", false);
  }

  static void checkKeys(Iterable<String> keys, String at) {
    for (String key : keys) {
      if (key.length() > 253 || !DATA_KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(
            at
                + "data key must match [-._a-zA-Z0-9]+ (at most 253 characters): "
                + Names.quote(key));
      }
    }
  }

  /** An {@code Opaque} secret holding the UTF-8 bytes of each value. */
  public static SecretSpec of(String namespace, String name, Map<String, String> values) {
    Map<String, SecretValue> data = new LinkedHashMap<>();
    requireNonNull(values, "values").forEach((k, v) -> data.put(k, SecretValue.of(v)));
    return new SecretSpec(
        namespace, name, "Opaque", Copies.sortedMap(data, "data"), emptyMap(), emptyMap());
  }

  private static SortedMap<String, String> emptyMap() {
    return Copies.sortedMap(Map.of(), "labels");
  }

  @Override
  public ResourceRef ref() {
    return ResourceRef.of(Kind.SECRET, namespace, name);
  }

  @Override
  public java.util.List<Manifest> render() {
    return java.util.List.of(TypedRendering.secret(this));
  }

  /** A copy with {@code key} set to the UTF-8 bytes of {@code value}. */
  public SecretSpec with(String key, String value) {
    Map<String, SecretValue> copy = new LinkedHashMap<>(data);
    copy.put(key, SecretValue.of(value));
    return new SecretSpec(
        namespace, name, secretType, Copies.sortedMap(copy, "data"), labels, annotations);
  }

  /** A copy with the given labels. */
  public SecretSpec withLabels(Map<String, String> labels) {
    return new SecretSpec(
        namespace, name, secretType, data, Copies.sortedMap(labels, "labels"), annotations);
  }

  /** Names the keys only; values are never shown. */
  @Override
  public String toString() {
    return "SecretSpec["
        + namespace
        + "/"
        + name
        + ", type="
        + secretType
        + ", keys="
        + data.keySet()
        + ", labels="
        + labels
        + ", annotations="
        + annotations
        + "]";
  }
}
