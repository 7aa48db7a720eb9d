package dev.capstan.update.plan;

import dev.capstan.update.cluster.CrdState;
import dev.capstan.update.cluster.CrdVersion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The CRD safety gate: the changes to a live CustomResourceDefinition that break the objects
 * already stored, found statically (pure; no cluster call). In the order checked:
 *
 * <ol>
 *   <li>a version in {@code status.storedVersions} is removed from {@code spec.versions};
 *   <li>a version in {@code status.storedVersions} is kept but no longer served;
 *   <li>the storage version changes without a path: a path means the old storage version stays in
 *       {@code spec.versions} and served, so objects stored at it can still be read and migrated to
 *       the new one (not reported again when rule 1 or 2 already named that version);
 *   <li>a version kept in both specs has a narrower {@code openAPIV3Schema}: a property removed (at
 *       any level, unless the new schema preserves unknown fields there), or a required field added
 *       (at any level the old schema already had).
 * </ol>
 */
final class CrdGate {
  private CrdGate() {}

  /**
   * Finds the unsafe changes.
   *
   * @param live the live CRD
   * @param desired the spec the release would apply
   * @return one line per finding, {@code version <v>: <reason>}, in rule order; empty when safe
   */
  static List<String> problems(CrdState live, Map<String, @Nullable Object> desired) {
    List<String> out = new ArrayList<>();
    Map<String, CrdVersion> next = new LinkedHashMap<>();
    for (CrdVersion v : CrdState.versions(desired)) {
      next.put(v.name(), v);
    }
    Set<String> named = new HashSet<>();
    for (String stored : live.storedVersions()) {
      CrdVersion v = next.get(stored);
      if (v == null) {
        named.add(stored);
        out.add(
            "version "
                + stored
                + ": stored version removed (status.storedVersions lists it, so objects may still"
                + " be stored at "
                + stored
                + " and could no longer be read)");
      } else if (!v.served()) {
        named.add(stored);
        out.add(
            "version "
                + stored
                + ": stored version no longer served (objects stored at "
                + stored
                + " could no longer be read)");
      }
    }
    Optional<String> oldStorage = storage(live.versions());
    Optional<String> newStorage = storage(List.copyOf(next.values()));
    if (oldStorage.isPresent()
        && newStorage.isPresent()
        && !oldStorage.get().equals(newStorage.get())
        && !named.contains(oldStorage.get())) {
      CrdVersion kept = next.get(oldStorage.get());
      if (kept == null || !kept.served()) {
        out.add(
            "version "
                + newStorage.get()
                + ": storage version changes from "
                + oldStorage.get()
                + " to "
                + newStorage.get()
                + " without a path ("
                + oldStorage.get()
                + " must stay served so objects stored at it can be read and migrated)");
      }
    }
    Map<String, Map<String, @Nullable Object>> nextSchemas = schemas(desired);
    for (Map.Entry<String, Map<String, @Nullable Object>> e : schemas(live.spec()).entrySet()) {
      Map<String, @Nullable Object> after = nextSchemas.get(e.getKey());
      if (after == null) {
        continue;
      }
      List<String> narrowed = new ArrayList<>();
      narrowing(e.getValue(), after, "", narrowed);
      for (String n : narrowed) {
        out.add("version " + e.getKey() + ": schema narrowed: " + n);
      }
    }
    return out;
  }

  private static Optional<String> storage(List<CrdVersion> versions) {
    return versions.stream().filter(CrdVersion::storage).map(CrdVersion::name).findFirst();
  }

  /** The {@code openAPIV3Schema} of every version that has one, by version name. */
  private static Map<String, Map<String, @Nullable Object>> schemas(
      Map<String, @Nullable Object> spec) {
    Map<String, Map<String, @Nullable Object>> out = new LinkedHashMap<>();
    if (spec.get("versions") instanceof List<?> list) {
      for (Object item : list) {
        if (item instanceof Map<?, ?> v
            && v.get("name") instanceof String name
            && v.get("schema") instanceof Map<?, ?> schema
            && schema.get("openAPIV3Schema") instanceof Map<?, ?> root) {
          out.put(name, map(root));
        }
      }
    }
    return out;
  }

  private static void narrowing(
      Map<String, @Nullable Object> before,
      Map<String, @Nullable Object> after,
      String path,
      List<String> out) {
    Map<String, @Nullable Object> oldProps = mapOrEmpty(before.get("properties"));
    Map<String, @Nullable Object> newProps = mapOrEmpty(after.get("properties"));
    boolean preserves = Boolean.TRUE.equals(after.get("x-kubernetes-preserve-unknown-fields"));
    for (Map.Entry<String, @Nullable Object> p : oldProps.entrySet()) {
      String at = join(path, p.getKey());
      Object next = newProps.get(p.getKey());
      if (next == null) {
        if (!preserves) {
          out.add("property " + at + " removed");
        }
      } else if (p.getValue() instanceof Map<?, ?> o && next instanceof Map<?, ?> n) {
        narrowing(map(o), map(n), at, out);
      }
    }
    Set<String> oldRequired = new HashSet<>(strings(before.get("required")));
    for (String r : strings(after.get("required"))) {
      if (!oldRequired.contains(r)) {
        out.add("required field " + join(path, r) + " added");
      }
    }
    if (before.get("items") instanceof Map<?, ?> o && after.get("items") instanceof Map<?, ?> n) {
      narrowing(map(o), map(n), path + "[]", out);
    }
    if (before.get("additionalProperties") instanceof Map<?, ?> o
        && after.get("additionalProperties") instanceof Map<?, ?> n) {
      narrowing(map(o), map(n), path + ".*", out);
    }
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private static List<String> strings(@Nullable Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object item : list) {
        if (item instanceof String s) {
          out.add(s);
        }
      }
    }
    return out;
  }

  private static Map<String, @Nullable Object> mapOrEmpty(@Nullable Object value) {
    return value instanceof Map<?, ?> m ? map(m) : Map.of();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, @Nullable Object> map(Map<?, ?> m) {
    return (Map<String, @Nullable Object>) m;
  }
}
