package dev.capstan.release.plan;

import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import java.util.Optional;

/**
 * What {@link Planner} plans for what the latest revision had and the spec dropped: an owned object
 * pruned, retained or left alone, and a namespace it ensured to be deleted with it pruned or kept
 * (the rows of ARCHITECTURE.md, "The 3-way plan", for an object the spec no longer holds).
 */
final class RemovalChange {
  private RemovalChange() {}

  /**
   * A namespace the latest revision ensured with {@link EnsuredNamespace#DELETE_WITH_RELEASE} and
   * this spec neither ensures nor references: pruned, unless it is the release's own namespace (its
   * records and lease are there), absent, or another release ensures it too.
   */
  static Optional<PlannedChange> of(ObjectJoin.DroppedNamespace dropped, ReleaseSpec spec) {
    EnsuredNamespace before = dropped.before();
    Optional<LiveObject> live = dropped.live();
    if (live.isEmpty()) {
      return Optional.empty();
    }
    ResourceRef ref = before.ref();
    String self = spec.qualifiedName();
    List<String> others = live.get().ensuredBy().stream().filter(r -> !r.equals(self)).toList();
    if (ref.name().equals(spec.namespace())) {
      return Optional.of(
          PlannedChange.reference(
              ref,
              "no longer ensured; kept: it is the release's own namespace (its record and lease"
                  + " are there)",
              false));
    }
    if (!others.isEmpty()) {
      return Optional.of(
          PlannedChange.reference(
              ref,
              "no longer ensured; kept: release "
                  + String.join(", ", others)
                  + (others.size() == 1 ? " ensures" : " ensure")
                  + " it too",
              false));
    }
    return Optional.of(
        PlannedChange.removal(
            ref,
            Action.PRUNE,
            "no longer ensured, and its document had "
                + EnsuredNamespace.DELETE_WITH_RELEASE
                + ": \"true\": deletes everything in it"));
  }

  /**
   * An object the latest revision owns and the spec dropped: pruned when live and stamped by this
   * release, retained when it is annotated {@code helm.sh/resource-policy: keep} (as recorded or
   * live), a volume claim whose data the release keeps or a CRD that may not be deleted; nothing
   * when absent or owned by another.
   */
  static Optional<PlannedChange> of(ObjectJoin.Dropped dropped, Release latest, ReleaseSpec spec) {
    ResourceRef ref = dropped.ref();
    Optional<LiveObject> liveObject = dropped.live();
    if (liveObject.isEmpty()) {
      return Optional.empty();
    }
    OwnershipStamp stamp = liveObject.get().stamp();
    if (stamp == null || !stamp.ownedBy(latest.identity())) {
      return Optional.empty();
    }
    if (latest.keepsByResourcePolicy(ref, liveObject.get().content())) {
      return Optional.of(
          PlannedChange.removal(
              ref,
              Action.RETAIN,
              ref.kind().isCrd()
                  ? Planner.RESOURCE_POLICY_KEPT_CRD
                  : Planner.RESOURCE_POLICY_KEPT));
    }
    if (ref.kind().isVolumeClaim() && latest.retainsVolume(ref, liveObject.get().content())) {
      return Optional.of(
          PlannedChange.removal(
              ref, Action.RETAIN, "reclaim policy Retain: un-stamped, data kept for re-adoption"));
    }
    if (ref.kind().isCrd() && !spec.options().allowCrdDeletion()) {
      return Optional.of(PlannedChange.removal(ref, Action.RETAIN, Planner.CRD_KEPT));
    }
    return Optional.of(PlannedChange.removal(ref, Action.PRUNE, null));
  }
}
