package dev.capstan.release;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;
import java.util.List;

/**
 * What an uninstall did.
 *
 * @param release the tombstone ({@code UNINSTALLED}), or with {@code purged} the last record before
 *     it was deleted
 * @param deleted the objects deleted, in the order they were deleted
 * @param retained the objects un-stamped and kept: volume claims with their data, CRDs
 * @param purged whether every record was deleted
 */
public record UninstallResult(
    Release release, List<ResourceRef> deleted, List<ResourceRef> retained, boolean purged) {
  /** Copies the lists. */
  public UninstallResult {
    requireNonNull(release, "release");
    deleted = List.copyOf(deleted);
    retained = List.copyOf(retained);
  }
}
