package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * A field Capstan applied that the live object no longer holds as applied and that Capstan's own
 * apply no longer owns: removed, or holding a value another field manager wrote. Adapters report
 * what they see; the planner decides what is drift, after the release's ignore rules ({@code
 * ReleaseOptions.driftIgnore}).
 *
 * @param path the field for people: {@code spec.replicas}
 * @param pointer the field in the object Capstan applies, as a JSON pointer ({@code
 *     /spec/replicas})
 * @param removed whether it is gone (else another manager's value is there)
 * @param manager the field manager that owns it now, or {@code null} (removed, or the adapter
 *     cannot tell)
 * @param subresource the subresource that manager wrote it through ({@code scale}), or {@code null}
 */
public record FieldDrift(
    String path,
    String pointer,
    boolean removed,
    @Nullable String manager,
    @Nullable String subresource) {

  /** Requires the path and pointer. */
  public FieldDrift {
    requireNonNull(path, "path");
    requireNonNull(pointer, "pointer");
  }

  /** A field that was removed. */
  public static FieldDrift removed(String path, String pointer) {
    return new FieldDrift(path, pointer, true, null, null);
  }

  /** A field another manager changed, through {@code subresource} when not {@code null}. */
  public static FieldDrift taken(
      String path, String pointer, @Nullable String manager, @Nullable String subresource) {
    return new FieldDrift(path, pointer, false, manager, subresource);
  }

  /**
   * What happened, for a plan's reason: {@code field data.color removed}, {@code field
   * spec.replicas set by kubectl (scale subresource)}, {@code field spec.x changed}.
   */
  public String describe() {
    if (removed) {
      return "field " + path + " removed";
    }
    if (manager == null) {
      return "field " + path + " changed";
    }
    return "field "
        + path
        + " set by "
        + manager
        + (subresource == null ? "" : " (" + subresource + " subresource)");
  }
}
