package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;
import java.util.List;

/**
 * What an uninstall did.
 *
 * @param release the tombstone ({@code UNINSTALLED}), or with {@code purged} the last record before
 *     it was deleted
 * @param deleted the objects deleted, in the order they were deleted (ensured namespaces the
 *     uninstall was allowed to delete last)
 * @param retained the objects un-stamped and kept: volume claims with their data, CRDs, objects
 *     annotated {@code helm.sh/resource-policy: keep}
 * @param purged whether every record was deleted
 * @param notes what else the uninstall left as it is and why, one line each for people: the objects
 *     kept for {@code helm.sh/resource-policy: keep} ({@code Secret/shop/db-password: retained:
 *     helm.sh/resource-policy: keep: ...}), the namespaces the release ensures ({@code
 *     Namespace//shop: kept: ...}), and the claims a deleted StatefulSet's {@code
 *     volumeClaimTemplates} made ({@code apps/StatefulSet/shop/db: ...}), which Kubernetes keeps
 *     unless the StatefulSet asks it to delete them
 */
public record UninstallResult(
    Release release,
    List<ResourceRef> deleted,
    List<ResourceRef> retained,
    boolean purged,
    List<String> notes) {
  /** Copies the lists. */
  public UninstallResult {
    requireNonNull(release, "release");
    deleted = List.copyOf(deleted);
    retained = List.copyOf(retained);
    notes = List.copyOf(notes);
  }

  /** A result without notes. */
  public UninstallResult(
      Release release, List<ResourceRef> deleted, List<ResourceRef> retained, boolean purged) {
    this(release, deleted, retained, purged, List.of());
  }

  /**
   * The outcome in one line, e.g. {@code UninstallResult[shop/web revision 3 uninstalled: 4
   * deleted, 1 retained]}.
   */
  @Override
  public String toString() {
    return "UninstallResult["
        + release.summary()
        + ": "
        + deleted.size()
        + " deleted, "
        + retained.size()
        + " retained"
        + (purged ? ", purged" : "")
        + "]";
  }
}
