package dev.capstan.common;

import static java.util.Objects.requireNonNull;

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
 * already stored, found statically (pure; no cluster call). The one gate of both engines: the
 * platform update planner (update-core) and the release planner (release-core, on every cast and
 * rollback that changes a CRD). In the order checked:
 *
 * <ol>
 *   <li>a version in {@code status.storedVersions} is removed from {@code spec.versions};
 *   <li>a version in {@code status.storedVersions} is kept but no longer served;
 *   <li>the storage version changes without a path: a path means the old storage version stays in
 *       {@code spec.versions} and served, so objects stored at it can still be read and migrated to
 *       the new one (not reported again when rule 1 or 2 already named that version);
 *   <li>a version kept in both specs has a narrower {@code openAPIV3Schema}: a property removed (at
 *       any level, unless the new schema preserves unknown fields there), or a required field added
 *       (outside the top-level {@code status}, which the kind's controller writes: status-only
 *       changes never narrow) (at any level the old schema already had).
 * </ol>
 *
 * <p>Specs are plain trees (maps, lists, strings, numbers, booleans), as parsed.
 */
public final class CrdGate {
  private CrdGate() {}

  /**
   * One version of a CustomResourceDefinition, as {@code spec.versions[]} declares it.
   *
   * @param name the version name, for example {@code v1}
   * @param served whether the API server serves it
   * @param storage whether objects are persisted at it (one version is the storage version)
   */
  public record Version(String name, boolean served, boolean storage) {
    /** Requires the name. */
    public Version {
      requireNonNull(name, "name");
    }
  }

  /**
   * The versions a CRD spec declares.
   *
   * @param spec a CRD {@code spec} tree
   * @return {@code spec.versions[]} with their flags, in spec order; entries without a name are
   *     left out
   */
  public static List<Version> versions(Map<String, ?> spec) {
    List<Version> out = new ArrayList<>();
    if (spec.get("versions") instanceof List<?> list) {
      for (Object item : list) {
        if (item instanceof Map<?, ?> v && v.get("name") instanceof String n) {
          out.add(
              new Version(
                  n, Boolean.TRUE.equals(v.get("served")), Boolean.TRUE.equals(v.get("storage"))));
        }
      }
    }
    return out;
  }

  /**
   * The storage versions a CRD spec declares: what {@code status.storedVersions} holds right after
   * the CRD was created, the least a live CRD whose status is unknown may have stored.
   */
  public static List<String> storageVersions(Map<String, ?> spec) {
    return versions(spec).stream().filter(Version::storage).map(Version::name).toList();
  }

  /** The rules, in the order they are checked. */
  public enum Rule {
    /** A version in {@code status.storedVersions} is removed from {@code spec.versions}. */
    STORED_VERSION_REMOVED,
    /** A version in {@code status.storedVersions} is kept but no longer served. */
    STORED_VERSION_NOT_SERVED,
    /** The storage version changes and the old one does not stay served. */
    STORAGE_VERSION_WITHOUT_PATH,
    /** A version kept in both specs has a narrower schema. */
    SCHEMA_NARROWED
  }

  /**
   * One unsafe change.
   *
   * @param rule the rule it breaks
   * @param version the version it is about
   * @param text what would break, {@code version <v>: <reason>}, with the names it echoes from the
   *     specs {@linkplain Escapes#escape escaped}
   */
  public record Finding(Rule rule, String version, String text) {
    /** Requires every part. */
    public Finding {
      requireNonNull(rule, "rule");
      requireNonNull(version, "version");
      requireNonNull(text, "text");
    }
  }

  /**
   * Finds the unsafe changes, as text.
   *
   * @param live the live CRD's {@code spec}
   * @param storedVersions the live CRD's {@code status.storedVersions}: every version objects may
   *     still be persisted at
   * @param desired the {@code spec} that would be applied
   * @return one line per finding, {@code version <v>: <reason>}, in rule order; empty when safe
   */
  public static List<String> problems(
      Map<String, ?> live, List<String> storedVersions, Map<String, ?> desired) {
    return findings(live, storedVersions, desired).stream().map(Finding::text).toList();
  }

  /**
   * Finds the unsafe changes.
   *
   * @param live the live CRD's {@code spec}
   * @param storedVersions the live CRD's {@code status.storedVersions}
   * @param desired the {@code spec} that would be applied
   * @return the findings in rule order; empty when safe
   */
  public static List<Finding> findings(
      Map<String, ?> live, List<String> storedVersions, Map<String, ?> desired) {
    // the two specs read first, then judged
    Map<String, Version> next = new LinkedHashMap<>();
    for (Version v : versions(desired)) {
      next.put(v.name(), v);
    }
    Optional<String> oldStorage = storage(versions(live));
    Optional<String> newStorage = storage(List.copyOf(next.values()));
    Map<String, Map<String, ?>> liveSchemas = schemas(live);
    Map<String, Map<String, ?>> nextSchemas = schemas(desired);
    List<Finding> out = new ArrayList<>();
    Set<String> named = new HashSet<>();
    for (String stored : storedVersions) {
      Version v = next.get(stored);
      String shown = Escapes.escape(stored);
      if (v == null) {
        named.add(stored);
        out.add(
            new Finding(
                Rule.STORED_VERSION_REMOVED,
                stored,
                "version "
                    + shown
                    + ": stored version removed (status.storedVersions lists it, so objects may"
                    + " still be stored at "
                    + shown
                    + " and could no longer be read)"));
      } else if (!v.served()) {
        named.add(stored);
        out.add(
            new Finding(
                Rule.STORED_VERSION_NOT_SERVED,
                stored,
                "version "
                    + shown
                    + ": stored version no longer served (objects stored at "
                    + shown
                    + " could no longer be read)"));
      }
    }
    if (oldStorage.isPresent()
        && newStorage.isPresent()
        && !oldStorage.get().equals(newStorage.get())
        && !named.contains(oldStorage.get())) {
      Version kept = next.get(oldStorage.get());
      if (kept == null || !kept.served()) {
        String from = Escapes.escape(oldStorage.get());
        String to = Escapes.escape(newStorage.get());
        out.add(
            new Finding(
                Rule.STORAGE_VERSION_WITHOUT_PATH,
                newStorage.get(),
                "version "
                    + to
                    + ": storage version changes from "
                    + from
                    + " to "
                    + to
                    + " without a path ("
                    + from
                    + " must stay served so objects stored at it can be read and migrated)"));
      }
    }
    for (Map.Entry<String, Map<String, ?>> e : liveSchemas.entrySet()) {
      Map<String, ?> after = nextSchemas.get(e.getKey());
      if (after == null) {
        continue;
      }
      List<String> narrowed = new ArrayList<>();
      narrowing(e.getValue(), after, "", narrowed);
      for (String n : narrowed) {
        out.add(
            new Finding(
                Rule.SCHEMA_NARROWED,
                e.getKey(),
                "version " + Escapes.escape(e.getKey()) + ": schema narrowed: " + n));
      }
    }
    return out;
  }

  private static Optional<String> storage(List<Version> versions) {
    return versions.stream().filter(Version::storage).map(Version::name).findFirst();
  }

  /** The {@code openAPIV3Schema} of every version that has one, by version name. */
  private static Map<String, Map<String, ?>> schemas(Map<String, ?> spec) {
    Map<String, Map<String, ?>> out = new LinkedHashMap<>();
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
      Map<String, ?> before, Map<String, ?> after, String path, List<String> out) {
    Map<String, ?> oldProps = mapOrEmpty(before.get("properties"));
    Map<String, ?> newProps = mapOrEmpty(after.get("properties"));
    boolean preserves = Boolean.TRUE.equals(after.get("x-kubernetes-preserve-unknown-fields"));
    for (Map.Entry<String, ?> p : oldProps.entrySet()) {
      if (path.isEmpty() && p.getKey().equals(STATUS)) {
        continue; // status-only: written by the kind's controller, never read back as a gate
      }
      String at = join(path, p.getKey());
      Object next = newProps.get(p.getKey());
      if (next == null) {
        if (!preserves) {
          out.add("property " + Escapes.escape(at) + " removed");
        }
      } else if (p.getValue() instanceof Map<?, ?> o && next instanceof Map<?, ?> n) {
        narrowing(map(o), map(n), at, out);
      }
    }
    Set<String> oldRequired = new HashSet<>(strings(before.get("required")));
    for (String r : strings(after.get("required"))) {
      if (path.isEmpty() && r.equals(STATUS)) {
        continue;
      }
      if (!oldRequired.contains(r)) {
        out.add("required field " + Escapes.escape(join(path, r)) + " added");
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

  /**
   * The top-level property a schema change never narrows in a way that breaks stored objects: an
   * object's {@code status} is its controller's to write (through the status subresource), so a
   * status property removed or a required status field added is no finding.
   */
  private static final String STATUS = "status";

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

  private static Map<String, ?> mapOrEmpty(@Nullable Object value) {
    return value instanceof Map<?, ?> m ? map(m) : Map.of();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> map(Map<?, ?> m) {
    return (Map<String, ?>) m;
  }
}
