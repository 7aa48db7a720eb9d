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
 * by default. The fields are known per kind ({@link ImmutableFields}). A replace is a delete to the
 * destructive-change gate ({@link dev.capstan.release.plan.DeleteRefusal}) and the access review,
 * and a CRD is replaced only where CRD deletion is allowed (its delete deletes every custom
 * resource of it). A cast never deletes what its plan did not show: an update the API server
 * refuses as immutable for a field the plan did not know fails the cast ({@link #refusedMessage}).
 * See ARCHITECTURE.md, "Cast, uninstall, rollback".
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
      if (c.ref().kind().isCrd() && !options.allowCrdDeletion()) {
        changes.set(i, c.refused(crdKept(changed)));
        continue;
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
   * Why an opted-in CRD whose immutable {@code fields} changed is not replaced: its delete deletes
   * every custom resource of it in the cluster, whoever owns them.
   */
  static String crdKept(List<String> fields) {
    return "immutable "
        + String.join(", ", fields)
        + " changed: replacing the CRD would delete it and every custom resource of it in the"
        + " cluster; allow CRD deletion (allowCrdDeletion, crdDeletion: Delete,"
        + " --allow-crd-deletion) to replace it";
  }

  /**
   * Why the cast of an update the API server refused as immutable fails: {@code message} is the
   * server's; the plan showed an update, not a replace, and a cast never deletes what its plan did
   * not show. Not opted in, how to opt in; opted in, to plan again (a plan replaces the fields
   * {@link ImmutableFields} knows) or delete it by hand.
   */
  static String refusedMessage(ResourceRef ref, String message, boolean optedIn) {
    if (!optedIn) {
      return message
          + "; the API server cannot update "
          + ref.key()
          + " in place: to delete and create it again, give it the annotation "
          + ANNOTATION
          + ": \"true\" (or cast with replaceOnImmutable)";
    }
    return message
        + "; the update of "
        + ref.key()
        + " was refused as immutable, and its plan showed an update, not a replace: a cast never"
        + " deletes what its plan did not show; plan again to replace it (a field the plan does"
        + " not know as immutable: delete it yourself, then cast again)";
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
