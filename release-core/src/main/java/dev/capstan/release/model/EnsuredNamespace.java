package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Copies;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@code Namespace} a release carries as a document and <em>ensures</em>: created when missing,
 * its labels and annotations applied as this release's fields (a field manager of its own, {@link
 * #fieldManager}), and otherwise only referenced: it is shared, never owned, and deleted by no
 * prune or uninstall unless the release opts in ({@link #DELETE_WITH_RELEASE}, or {@code
 * UninstallOptions.deleteNamespaces}). Only the name, the labels and the annotations of the
 * document are applied; any other field is refused ({@link #of}). See ARCHITECTURE.md, "Ensured
 * namespaces".
 *
 * @param name the namespace
 * @param labels the labels the release applies, sorted by key
 * @param annotations the annotations the release applies, sorted by key
 */
public record EnsuredNamespace(
    String name, Map<String, String> labels, Map<String, String> annotations) {

  /**
   * The annotation by which a Namespace document lets its release delete the namespace when it lets
   * go of it (uninstall, or a cast that no longer carries the document): {@code "true"} or {@code
   * "false"} (the default).
   */
  public static final String DELETE_WITH_RELEASE = "capstan.dev/delete-with-release";

  /** The prefix of the field managers that ensure namespaces: {@code capstan/NAMESPACE/NAME}. */
  public static final String FIELD_MANAGER_PREFIX = "capstan/";

  private static final Set<String> METADATA = Set.of("name", "labels", "annotations");

  /** Checks the name; copies the maps, sorted. */
  public EnsuredNamespace {
    name = ResourceRef.namespace(requireNonNull(name, "name")).name();
    labels = Copies.sortedMap(labels, "labels");
    annotations = Copies.sortedMap(annotations, "annotations");
    String delete = annotations.get(DELETE_WITH_RELEASE);
    if (delete != null && !delete.equals("true") && !delete.equals("false")) {
      throw new IllegalArgumentException(
          "Namespace//"
              + name
              + ": metadata.annotations[\""
              + DELETE_WITH_RELEASE
              + "\"] must be \"true\" or \"false\": "
              + Escapes.quote(delete));
    }
  }

  /**
   * The namespace a {@code Namespace} manifest ensures.
   *
   * @throws IllegalArgumentException naming the field when the manifest holds anything but {@code
   *     metadata.name}, {@code metadata.labels}, {@code metadata.annotations} and an empty {@code
   *     spec} or {@code status} (nothing else of a Namespace is applied, so nothing else may be
   *     given)
   */
  public static EnsuredNamespace of(Manifest namespace) {
    requireNonNull(namespace, "namespace");
    if (!namespace.kind().equals(Kind.NAMESPACE)) {
      throw new IllegalArgumentException(
          "an ensured namespace must be a Namespace: " + namespace.ref().key());
    }
    String at = namespace.ref().key() + ": ";
    for (Map.Entry<String, Object> e : namespace.content().entrySet()) {
      String field = e.getKey();
      if (field.equals("apiVersion") || field.equals("kind") || field.equals("metadata")) {
        continue;
      }
      if ((field.equals("spec") && isDefault(e.getValue(), "finalizers", List.of("kubernetes")))
          || (field.equals("status") && isDefault(e.getValue(), "phase", "Active"))) {
        continue;
      }
      throw new IllegalArgumentException(at + refused(field));
    }
    if (namespace.get("metadata") instanceof Map<?, ?> metadata) {
      for (Object field : metadata.keySet()) {
        if (!METADATA.contains(String.valueOf(field))) {
          throw new IllegalArgumentException(at + refused("metadata." + field));
        }
      }
    }
    return new EnsuredNamespace(namespace.name(), namespace.labels(), namespace.annotations());
  }

  /** An empty mapping, or one holding only the value the API server gives every namespace. */
  private static boolean isDefault(@Nullable Object value, String key, Object serverDefault) {
    return value instanceof Map<?, ?> m
        && (m.isEmpty() || (m.size() == 1 && serverDefault.equals(m.get(key))));
  }

  private static String refused(String field) {
    return Escapes.escape(field)
        + " is not applied: a Namespace in a release is ensured (created when missing, its labels"
        + " and annotations applied, never owned), and only its metadata.name, metadata.labels"
        + " and metadata.annotations are applied; remove "
        + Escapes.escape(field)
        + " from the document";
  }

  /** {@code Namespace//name}. */
  public ResourceRef ref() {
    return ResourceRef.namespace(name);
  }

  /** Whether the document lets the release delete the namespace ({@link #DELETE_WITH_RELEASE}). */
  public boolean deleteWithRelease() {
    return "true".equals(annotations.get(DELETE_WITH_RELEASE));
  }

  /** The namespace as the manifest that is applied: name, labels and annotations. */
  public Manifest toManifest() {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    if (!labels.isEmpty()) {
      metadata.put("labels", labels);
    }
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    Map<String, Object> tree = new LinkedHashMap<>();
    tree.put("apiVersion", "v1");
    tree.put("kind", "Namespace");
    tree.put("metadata", metadata);
    return Manifest.of(tree);
  }

  /**
   * The field manager under which a release applies the namespaces it ensures: {@code
   * capstan/NAMESPACE/NAME}, one per release, so that two releases ensuring one namespace each own
   * their own labels and annotations (one release's apply never removes the other's), and at most
   * 125 characters (the API server allows 128).
   */
  public static String fieldManager(String releaseNamespace, String releaseName) {
    return FIELD_MANAGER_PREFIX + releaseNamespace + "/" + releaseName;
  }

  /**
   * The release ({@code NAMESPACE/NAME}) whose {@link #fieldManager} {@code manager} is, or empty
   * for any other manager.
   */
  public static Optional<String> releaseOf(@Nullable String manager) {
    if (manager == null || !manager.startsWith(FIELD_MANAGER_PREFIX)) {
      return Optional.empty();
    }
    String rest = manager.substring(FIELD_MANAGER_PREFIX.length());
    List<String> parts = List.of(rest.split("/", -1));
    if (parts.size() != 2 || parts.get(0).isEmpty() || parts.get(1).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(rest);
  }

  /**
   * What applying this namespace over {@code live} (its labels and annotations now) changes, given
   * {@code previous}, what the release applied last (or {@code null}): each label and annotation to
   * set ({@code key=value}) and each the release applied before and dropped since, which the apply
   * removes (unless another manager also holds it); empty when the apply would change nothing.
   */
  public List<String> changes(
      Map<String, String> liveLabels,
      Map<String, String> liveAnnotations,
      @Nullable EnsuredNamespace previous) {
    List<String> out = new java.util.ArrayList<>();
    describe("labels", labels, liveLabels, previous == null ? Map.of() : previous.labels(), out);
    describe(
        "annotations",
        annotations,
        liveAnnotations,
        previous == null ? Map.of() : previous.annotations(),
        out);
    return out;
  }

  private static void describe(
      String what,
      Map<String, String> desired,
      Map<String, String> live,
      Map<String, String> previous,
      List<String> out) {
    List<String> set = new java.util.ArrayList<>();
    desired.forEach(
        (k, v) -> {
          if (!v.equals(live.get(k))) {
            String now = live.get(k);
            set.add(
                Escapes.escape(k)
                    + "="
                    + Escapes.escape(v)
                    + (now == null ? "" : " (now " + Escapes.quote(now) + ")"));
          }
        });
    List<String> remove = new java.util.ArrayList<>();
    previous.forEach(
        (k, v) -> {
          if (!desired.containsKey(k) && live.containsKey(k)) {
            remove.add(Escapes.escape(k));
          }
        });
    if (!set.isEmpty()) {
      out.add(what + " to apply: " + String.join(", ", set));
    }
    if (!remove.isEmpty()) {
      out.add(what + " to remove: " + String.join(", ", remove));
    }
  }
}
