package dev.capstan.release.plan;

import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What {@link Planner} plans for one desired object: create, update, repair, adopt, leave
 * unchanged, or refuse as a conflict, from its stamp, the record's hash and its drift (the rows of
 * ARCHITECTURE.md, "The 3-way plan", for an object the spec holds).
 */
final class DesiredChange {
  private DesiredChange() {}

  /**
   * The change for the desired object {@code d}: its decision ({@link #decide}) over what is live,
   * with the fields rules of paths ({@code ignoredPaths}) and rules of managers leave to others.
   * {@code retained} says the latest revision retained it, {@code retainedUid} which object it
   * retained ({@code null}: a record that does not say).
   */
  static PlannedChange of(
      DesiredResource d,
      Optional<LiveObject> liveObject,
      @Nullable String recordedHash,
      boolean retained,
      @Nullable String retainedUid,
      @Nullable ReleaseIdentity self,
      @Nullable Integer failed,
      ReleaseSpec spec,
      @Nullable String updateReason,
      List<IgnoredField> ignoredPaths) {
    Drift drift = liveObject.map(l -> drift(l, spec)).orElse(new Drift(null, List.of()));
    PlannedChange change =
        decide(
            d,
            liveObject,
            drift.reason(),
            recordedHash,
            retained,
            retainedUid,
            self,
            failed,
            spec,
            updateReason);
    if (change.action() == Action.CREATE
        || change.action() == Action.CONFLICT
        || (ignoredPaths.isEmpty() && drift.ignored().isEmpty())) {
      return change;
    }
    List<IgnoredField> ignored = new ArrayList<>(ignoredPaths);
    ignored.addAll(drift.ignored());
    return change.withIgnored(ignored);
  }

  /**
   * The drift of an object that is not ignored, and the fields rules of managers ignore: the
   * observation's field drift less what trusted managers hold ({@code null} when that leaves
   * nothing), or, when the adapter reports no fields, its drift as it says it.
   */
  record Drift(@Nullable String reason, List<IgnoredField> ignored) {}

  static Drift drift(LiveObject live, ReleaseSpec spec) {
    if (live.driftFields().isEmpty()) {
      return new Drift(live.drift(), List.of());
    }
    List<DriftIgnore> rules = spec.options().driftIgnoreFor(live.ref());
    List<IgnoredField> ignored = new ArrayList<>();
    String reason = null;
    for (FieldDrift f : live.driftFields()) {
      DriftIgnore rule = f.removed() || f.manager() == null ? null : trusting(rules, f.manager());
      if (rule != null) {
        ignored.add(new IgnoredField(f.path(), f.pointer(), rule.describe(), f.manager()));
      } else if (reason == null) {
        reason = f.describe();
      }
    }
    return new Drift(reason, ignored);
  }

  private static @Nullable DriftIgnore trusting(List<DriftIgnore> rules, String manager) {
    for (DriftIgnore r : rules) {
      if (r.managers().contains(manager)) {
        return r;
      }
    }
    return null;
  }

  private static PlannedChange decide(
      DesiredResource d,
      Optional<LiveObject> liveObject,
      @Nullable String drift,
      @Nullable String recordedHash,
      boolean retained,
      @Nullable String retainedUid,
      @Nullable ReleaseIdentity self,
      @Nullable Integer failed,
      ReleaseSpec spec,
      @Nullable String updateReason) {
    ResourceRef ref = d.ref();
    String hash = d.contentHash();
    int wave = d.wave();
    if (liveObject.isEmpty()) {
      return PlannedChange.of(
          ref,
          Action.CREATE,
          recordedHash == null ? null : "recreate: deleted out of band",
          hash,
          wave);
    }
    LiveObject live = liveObject.get();
    OwnershipStamp stamp = live.stamp();
    boolean adopt = spec.options().adopt();
    if (stamp == null) {
      if (retained) {
        String uid = live.uid();
        if (retainedUid == null || uid == null || retainedUid.equals(uid)) {
          return PlannedChange.of(ref, Action.ADOPT, "re-adopt, retained earlier", hash, wave);
        }
        // deleted since it was let go of, and someone else's object created at its name
        String replaced =
            "retained earlier, but the object there now is another one (uid "
                + uid
                + ", retained uid "
                + retainedUid
                + ")";
        return adopt
            ? PlannedChange.of(ref, Action.ADOPT, replaced + "; adopting", hash, wave)
            : PlannedChange.conflict(
                ref, replaced + "; pass adopt (the CLI's --adopt) to take it", null, wave);
      }
      if (recordedHash != null) {
        return adopt
            ? PlannedChange.of(ref, Action.ADOPT, "take back: ownership stamp removed", hash, wave)
            : PlannedChange.conflict(
                ref,
                "recorded as owned, but the live object has no ownership stamp; pass adopt (the CLI's --adopt) to take"
                    + " it back",
                null,
                wave);
      }
      return adopt
          ? PlannedChange.of(ref, Action.ADOPT, "exists unmanaged; adopting", hash, wave)
          : PlannedChange.conflict(
              ref,
              "exists and is unmanaged; pass adopt (the CLI's --adopt) to take ownership",
              null,
              wave);
    }
    if (self != null && stamp.ownedBy(self)) {
      String base = recordedHash != null ? recordedHash : stamp.contentHash();
      if (!base.equals(hash)) {
        return PlannedChange.of(ref, Action.UPDATE, updateReason, hash, wave);
      }
      if (failed != null && !stamp.contentHash().equals(hash)) {
        // the failed revision recorded the desired content, and did not leave it in place
        return PlannedChange.of(
            ref,
            Action.UPDATE,
            "finishes failed revision "
                + failed
                + ": the live object still holds what revision "
                + stamp.revision()
                + " applied",
            hash,
            wave);
      }
      if (failed != null && stamp.revision() == failed && drift != null) {
        // written by the failed revision and changed since (undone, reverted by hand): not drift
        // from a deployed revision, but an attempt to finish
        return PlannedChange.of(
            ref,
            Action.UPDATE,
            "finishes failed revision "
                + failed
                + ": the live object no longer holds what it applied ("
                + drift
                + ")",
            hash,
            wave);
      }
      if (!stamp.contentHash().equals(hash)) {
        // recorded at the desired content by an attempt that failed before writing this object
        return PlannedChange.of(
            ref,
            Action.UPDATE,
            "finish the failed attempt: live object still holds what revision "
                + stamp.revision()
                + " applied",
            hash,
            wave);
      }
      if (drift != null) {
        return PlannedChange.of(ref, Action.REPAIR, "drift: " + drift, hash, wave);
      }
      return PlannedChange.of(ref, Action.UNCHANGED, null, hash, wave);
    }
    ReleaseIdentity owner = stamp.owner();
    if (owner.namespace().equals(spec.namespace()) && owner.name().equals(spec.name())) {
      return adopt
          ? PlannedChange.of(
              ref,
              Action.ADOPT,
              "take over from an earlier install of this release (id " + owner.id() + ")",
              hash,
              wave)
          : PlannedChange.conflict(
              ref,
              "owned by an earlier install of this release (id "
                  + owner.id()
                  + ") whose record is gone; pass adopt (the CLI's --adopt) to take ownership",
              owner,
              wave);
    }
    return PlannedChange.conflict(
        ref, "owned by release " + owner.qualifiedName() + "; never taken over", owner, wave);
  }
}
