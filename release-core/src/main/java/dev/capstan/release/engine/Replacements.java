package dev.capstan.release.engine;

import dev.capstan.release.diff.AppliedFields;
import dev.capstan.release.model.ImmutableFields;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.IgnoredField;
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
   * {@link Action#REPLACE} naming the fields; every other change as planned. A field changes where
   * the desired object sets a value the live one does not hold, or where it drops a field that
   * {@code latest}'s payload for the object set and the live object still holds (server-side apply
   * removes it, which the API server refuses as it refuses a change).
   */
  static Plan mark(
      Plan plan,
      @Nullable Release latest,
      LiveState live,
      Map<ResourceRef, Manifest> desired,
      ReleaseOptions options) {
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
      if (have == null) {
        continue;
      }
      Manifest before = latest == null ? null : latest.payloads().get(c.ref()).orElse(null);
      List<AppliedFields.Departure> dropped =
          before == null ? List.of() : dropped(c, before, want, have, fields);
      List<String> set = AppliedFields.changedAt(want, have, fields);
      List<String> changed =
          fields.stream()
              .filter(
                  f ->
                      set.contains(f)
                          || dropped.stream()
                              .anyMatch(d -> within(d.pointer(), "/" + f.replace('.', '/'))))
              .toList();
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
                  + " changed"
                  + (dropped.isEmpty() ? "" : " (removed: " + paths(dropped) + ")")
                  + ": deleted and created again"
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
   * The fields under the immutable {@code fields} that {@code before} set, that {@code have} still
   * holds and that {@code want} drops; none under a field that ignore rules leave to others (not
   * written, so not removed).
   */
  private static List<AppliedFields.Departure> dropped(
      PlannedChange c, Manifest before, Manifest want, Manifest have, List<String> fields) {
    List<String> ignored = c.ignored().stream().map(IgnoredField::pointer).toList();
    return AppliedFields.droppedAt(before, want, have, fields).stream()
        .filter(d -> ignored.stream().noneMatch(p -> within(d.pointer(), p)))
        .toList();
  }

  /** Whether the JSON pointer {@code pointer} is {@code outer} or a field inside it. */
  private static boolean within(String pointer, String outer) {
    return pointer.equals(outer) || pointer.startsWith(outer + "/");
  }

  private static String paths(List<AppliedFields.Departure> fields) {
    return String.join(", ", fields.stream().map(AppliedFields.Departure::path).toList());
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
   * not show. Not opted in, how to opt in; opted in, the plan already replaces what it knows as
   * immutable ({@link ImmutableFields}: a field set or dropped), so planning again shows the same
   * update: to delete the object by hand and cast again, which creates it.
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
        + " was refused as immutable for a field its plan did not know as immutable (it showed an"
        + " update, not a replace, and planning again shows the same update): a cast never"
        + " deletes what its plan did not show; delete "
        + ref.key()
        + " yourself, then cast again to create it";
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
