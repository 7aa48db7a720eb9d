package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.Trees;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Any Kubernetes object, as an immutable tree: nested maps with string keys, lists, strings,
 * booleans, numbers and nulls, as a JSON or YAML document holds them. The tree is deep-copied in
 * and can never be changed from outside; numbers keep the form they were given in ({@code 1.10}
 * stays {@code 1.10}); a field whose value is null is left out, as the API server treats it.
 *
 * <p>Its {@link #ref()} comes from {@code apiVersion}, {@code kind}, {@code metadata.namespace} and
 * {@code metadata.name}, checked when the manifest is made. A manifest of a namespaced kind without
 * a namespace takes the default namespace it is given; without one it is refused.
 *
 * <p>{@link #toString()} shows only the reference, so a Secret's values never print.
 */
public final class Manifest implements ResourceSpec {
  /**
   * Helm's resource policy annotation. An object that carries it with {@value #KEEP} is never
   * deleted by the release that lets go of it, as Helm never deletes it: it is un-stamped and kept
   * (ARCHITECTURE.md, "The 3-way plan"); a namespace the release deletes still takes it with the
   * rest of what it holds.
   */
  public static final String RESOURCE_POLICY = "helm.sh/resource-policy";

  /** The value of {@value #RESOURCE_POLICY} that keeps an object. */
  public static final String KEEP = "keep";

  private final Map<String, Object> content;
  private final ResourceRef ref;
  private volatile @Nullable String hash;

  private Manifest(Map<String, Object> content, ResourceRef ref) {
    this.content = content;
    this.ref = ref;
  }

  /**
   * A manifest of {@code object}, which must name its namespace when its kind is namespaced. A kind
   * the built-in table does not know is namespaced when the object names a namespace.
   *
   * @throws IllegalArgumentException naming the field, the rule and the value
   */
  public static Manifest of(Map<String, ?> object) {
    return of(object, null, null);
  }

  /**
   * A manifest of an object of a Kubernetes client library's model (client-java's {@code
   * V1Deployment}, say), converted by the {@link ManifestConverter} that knows its type; a {@code
   * Map} is taken as a tree, as by {@link #of(Map)}. It must name its namespace when its kind is
   * namespaced.
   *
   * @throws IllegalArgumentException if no converter knows the type, or naming the field, the rule
   *     and the value
   */
  public static Manifest ofModel(Object model) {
    @SuppressWarnings("unchecked")
    Map<String, ?> tree = (Map<String, ?>) ManifestConverters.tree(requireNonNull(model, "model"));
    return of(tree, null, null);
  }

  /**
   * A manifest of {@code object}; a namespaced object without {@code metadata.namespace} is put in
   * {@code defaultNamespace}.
   *
   * @throws IllegalArgumentException naming the field, the rule and the value
   */
  public static Manifest of(Map<String, ?> object, @Nullable String defaultNamespace) {
    return of(object, defaultNamespace, null);
  }

  /**
   * A manifest of {@code object} of the given kind (used when the kind's scope is known from a CRD
   * or from the cluster, not from the built-in table); a namespaced object without {@code
   * metadata.namespace} is put in {@code defaultNamespace}.
   *
   * @param kind the kind, or {@code null} to take it from the built-in table or the object
   * @throws IllegalArgumentException naming the field, the rule and the value
   */
  public static Manifest of(
      Map<String, ?> object, @Nullable String defaultNamespace, @Nullable Kind kind) {
    Map<String, Object> tree = Trees.copyObject(requireNonNull(object, "object"), "");
    String apiVersion = requiredString(tree, "apiVersion", "apiVersion");
    String kindName = requiredString(tree, "kind", "kind");
    Object metadataValue = tree.get("metadata");
    if (!(metadataValue instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(
          "manifest "
              + Escapes.escape(kindName)
              + ": metadata must be a mapping with a name: "
              + (metadataValue == null ? "missing" : Escapes.quote(metadataValue)));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) metadataValue;
    String name = requiredString(metadata, "name", kindName + ": metadata.name");
    Object ns = metadata.get("namespace");
    if (ns != null && !(ns instanceof String)) {
      throw new IllegalArgumentException(
          "manifest "
              + Escapes.escape(kindName)
              + " "
              + Escapes.quote(name)
              + ": metadata.namespace must be a string: "
              + Escapes.quote(ns));
    }
    String namespace = ns == null ? "" : (String) ns;
    Kind k;
    try {
      k =
          kind != null
              ? kind.atVersion(versionOf(apiVersion))
              : Kind.of(apiVersion, kindName, !namespace.isEmpty() || defaultNamespace != null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "manifest "
              + Escapes.escape(kindName)
              + " "
              + Escapes.quote(name)
              + ": "
              + e.getMessage(),
          e);
    }
    if (kind != null && !kind.key().equals(keyOf(apiVersion, kindName))) {
      throw new IllegalArgumentException(
          "manifest "
              + Escapes.quote(name)
              + ": apiVersion/kind "
              + Escapes.quote(apiVersion + " " + kindName)
              + " does not match the kind given: "
              + kind.key());
    }
    if (k.namespaced() && namespace.isEmpty()) {
      if (defaultNamespace == null) {
        throw new IllegalArgumentException(
            "manifest "
                + k.key()
                + " "
                + Escapes.quote(name)
                + ": metadata.namespace is required for a namespaced kind, and no default"
                + " namespace was given");
      }
      namespace = defaultNamespace;
      Map<String, Object> meta = new LinkedHashMap<>(metadata);
      meta.put("namespace", namespace);
      Map<String, Object> copy = new LinkedHashMap<>(tree);
      copy.put("metadata", Collections.unmodifiableMap(meta));
      tree = Collections.unmodifiableMap(copy);
    }
    ResourceRef ref;
    try {
      ref = ResourceRef.of(k, namespace, name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("manifest " + k.key() + ": " + e.getMessage(), e);
    }
    checkStringMap(metadata, "labels", ref);
    checkStringMap(metadata, "annotations", ref);
    return new Manifest(tree, ref);
  }

  private static String versionOf(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
  }

  private static String keyOf(String apiVersion, String kind) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? kind : apiVersion.substring(0, slash) + "/" + kind;
  }

  private static String requiredString(Map<String, Object> map, String key, String field) {
    Object value = map.get(key);
    if (!(value instanceof String s) || s.isEmpty()) {
      throw new IllegalArgumentException(
          "manifest: "
              + Escapes.escape(field)
              + " must be a non-empty string: "
              + (value == null ? "missing" : Escapes.quote(value)));
    }
    return s;
  }

  private static void checkStringMap(Map<String, Object> metadata, String key, ResourceRef ref) {
    Object value = metadata.get(key);
    if (value == null) {
      return;
    }
    // a Secret's annotations are never shown (the plan's diff masks them too: they may copy its
    // data)
    boolean hidden = key.equals("annotations") && ref.kind().kind().equals("Secret");
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(
          ref.key()
              + ": metadata."
              + key
              + " must be a mapping"
              + (hidden ? " " + Escapes.NOT_SHOWN : ": " + Escapes.quote(value)));
    }
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getValue() instanceof String)) {
        throw new IllegalArgumentException(
            ref.key()
                + ": metadata."
                + key
                + "."
                + Escapes.escape(String.valueOf(e.getKey()))
                + " must be a string (quote it)"
                + (hidden ? " " + Escapes.NOT_SHOWN : ": " + Escapes.quote(e.getValue())));
      }
    }
  }

  /** The whole object, read-only (nested maps and lists are unmodifiable too). */
  public Map<String, Object> content() {
    return content;
  }

  /** The object's kind. */
  public Kind kind() {
    return ref.kind();
  }

  @Override
  public ResourceRef ref() {
    return ref;
  }

  @Override
  public String namespace() {
    return ref.namespace();
  }

  @Override
  public String name() {
    return ref.name();
  }

  @Override
  public SortedMap<String, String> labels() {
    return stringMap("labels");
  }

  @Override
  public SortedMap<String, String> annotations() {
    return stringMap("annotations");
  }

  /**
   * Whether this object carries {@value #RESOURCE_POLICY}: {@value #KEEP}, read as Helm reads it
   * (blanks around the value and letter case ignored).
   */
  public boolean keptByResourcePolicy() {
    String policy = annotations().get(RESOURCE_POLICY);
    return policy != null && KEEP.equals(policy.strip().toLowerCase(Locale.ROOT));
  }

  @Override
  public List<Manifest> render() {
    return List.of(this);
  }

  /** The value at a dotted path such as {@code spec.template.spec}, or {@code null}. */
  public @Nullable Object get(String path) {
    return Trees.get(content, path);
  }

  /**
   * A copy with the value at the dotted {@code path} set (maps on the way are created), or removed
   * when {@code value} is {@code null}.
   */
  public Manifest with(String path, @Nullable Object value) {
    return of(Trees.with(content, path, value), null, ref.kind());
  }

  /**
   * A copy with {@code key} set to {@code value} in the map at the dotted {@code mapPath} (created
   * when absent), for keys that hold dots themselves, such as annotation names: {@code
   * withEntry("metadata.annotations", "capstan.dev/config-rollout", "false")}.
   */
  public Manifest withEntry(String mapPath, String key, Object value) {
    Map<String, Object> map = new LinkedHashMap<>();
    if (get(mapPath) instanceof Map<?, ?> existing) {
      existing.forEach((k, v) -> map.put(String.valueOf(k), v));
    }
    map.put(key, value);
    return with(mapPath, map);
  }

  /** A copy with a whole new content, which must keep the same reference. */
  public Manifest withContent(Map<String, ?> object) {
    Manifest m = of(object, null, ref.kind());
    if (!m.ref.equals(ref)) {
      throw new IllegalArgumentException(
          "a changed manifest must keep its reference " + ref.key() + ": " + m.ref.key());
    }
    return m;
  }

  private SortedMap<String, String> stringMap(String key) {
    SortedMap<String, String> out = new TreeMap<>();
    if (content.get("metadata") instanceof Map<?, ?> meta
        && meta.get(key) instanceof Map<?, ?> map) {
      map.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    }
    return out;
  }

  /** Equal when the references and the canonical JSON are equal ({@code 2} and {@code 2L} are). */
  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Manifest other
        && ref.equals(other.ref)
        && (content.equals(other.content) || contentHash().equals(other.contentHash()));
  }

  @Override
  public int hashCode() {
    return ref.hashCode();
  }

  private String contentHash() {
    String h = hash;
    if (h == null) {
      h = ContentHash.of(this);
      hash = h;
    }
    return h;
  }

  /** The reference only: a Secret's values never print. */
  @Override
  public String toString() {
    return "Manifest[" + ref.key() + "]";
  }
}
