package dev.capstan.release.engine;

import dev.capstan.release.diff.AppliedFields;
import dev.capstan.release.model.ImmutableFields;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Replace on immutable change: an update of an object that changes a field the API server keeps
 * immutable (a workload's selector, a Job's template, a claim's spec, a binding's roleRef, a
 * StorageClass's provisioner) cannot be applied; with the object's or the release's opt-in it is
 * planned as {@link Action#REPLACE} (destructive: the object is deleted and created again), never
 * by default. The fields are known per kind ({@link ImmutableFields}); an update the API server
 * refuses as immutable for another field is replaced when the cast runs, with the same opt-in. See
 * ARCHITECTURE.md, "Cast, uninstall, rollback".
 */
final class Replacements {
  /** The annotation by which one object opts in. */
  static final String ANNOTATION = "capstan.dev/replace-on-immutable";

  private Replacements() {}

  /** Whether the object, or the release, opted in to replacement. */
  static boolean optedIn(Manifest desired, ReleaseOptions options) {
    return options.replaceOnImmutable() || "true".equals(desired.annotations().get(ANNOTATION));
  }

  /**
   * The plan with each opted-in update (or repair) that changes an immutable field turned into a
   * {@link Action#REPLACE} naming the fields; every other change as planned.
   */
  static Plan mark(
      Plan plan, LiveState live, Map<ResourceRef, Manifest> desired, ReleaseOptions options) {
    List<PlannedChange> changes = null;
    for (int i = 0; i < plan.changes().size(); i++) {
      PlannedChange c = plan.changes().get(i);
      if (c.action() != Action.UPDATE && c.action() != Action.REPAIR) {
        continue;
      }
      Manifest want = desired.get(c.ref());
      List<String> fields = ImmutableFields.of(c.ref().kind());
      if (want == null || fields.isEmpty() || !optedIn(want, options)) {
        continue;
      }
      Manifest have = live.get(c.ref()).map(LiveObject::content).orElse(null);
      // the immutable fields at which want sets a value the live object does not hold
      List<String> changed = have == null ? List.of() : AppliedFields.changedAt(want, have, fields);
      if (changed.isEmpty()) {
        continue;
      }
      if (changes == null) {
        changes = new ArrayList<>(plan.changes());
      }
      changes.set(
          i,
          new PlannedChange(
              c.ref(),
              Action.REPLACE,
              "immutable "
                  + String.join(", ", changed)
                  + " changed: deleted and created again"
                  + (c.reason() == null ? "" : " (" + c.reason() + ")"),
              c.desiredHash(),
              c.owner(),
              c.createReference(),
              c.wave(),
              c.diff(),
              c.ignored()));
    }
    return changes == null ? plan : plan.withChanges(changes);
  }

  /**
   * Whether the API server refused an update because it changes an immutable field: HTTP 422 with
   * the wording of its validation ({@code field is immutable}, {@code may not change once set}).
   */
  static boolean refusedAsImmutable(@Nullable Integer status, @Nullable String message) {
    return status != null
        && status == 422
        && message != null
        && (message.contains("field is immutable")
            || message.contains("is immutable")
            || message.contains("may not change once set"));
  }
}
