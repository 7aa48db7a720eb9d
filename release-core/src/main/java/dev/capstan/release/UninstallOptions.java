package dev.capstan.release;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How an uninstall behaves.
 *
 * @param keepVolumes keep every volume's data, whatever its reclaim policy (un-stamp and record it)
 * @param purge delete every record of the release instead of keeping an {@code UNINSTALLED}
 *     tombstone
 * @param deleteCrds delete the CustomResourceDefinitions the release owns; off by default, since
 *     deleting a CRD deletes every custom resource of it, cluster-wide (they are un-stamped and
 *     kept)
 * @param waitFor how long to wait, after the deletes, until the deleted objects are gone
 *     (finalizers run; watch-based on Kubernetes), as {@code helm uninstall --wait} does; {@code
 *     null} (the default) does not wait. An object still present then fails the uninstall, which
 *     stays {@code UNINSTALLING} owning it, so a retry deletes and waits again
 */
public record UninstallOptions(
    boolean keepVolumes, boolean purge, boolean deleteCrds, @Nullable Duration waitFor) {
  private static final UninstallOptions DEFAULTS = new UninstallOptions(false, false, false, null);

  /** Requires a positive wait, when given. */
  public UninstallOptions {
    if (waitFor != null && (waitFor.isNegative() || waitFor.isZero())) {
      throw new IllegalArgumentException("uninstall waitFor must be positive: " + waitFor);
    }
  }

  /** Honour reclaim policies, keep a tombstone, do not wait. */
  public static UninstallOptions defaults() {
    return DEFAULTS;
  }

  /** A copy with {@code keepVolumes} set. */
  public UninstallOptions withKeepVolumes(boolean keepVolumes) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor);
  }

  /** A copy with {@code purge} set. */
  public UninstallOptions withPurge(boolean purge) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor);
  }

  /** A copy with {@code deleteCrds} set. */
  public UninstallOptions withDeleteCrds(boolean deleteCrds) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor);
  }

  /** A copy that waits up to {@code waitFor} for deletions to finish ({@code null}: no wait). */
  public UninstallOptions withWait(@Nullable Duration waitFor) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor);
  }

  /** Keeps volume data and tombstone as given; CRDs are kept; no wait. */
  public UninstallOptions(boolean keepVolumes, boolean purge) {
    this(keepVolumes, purge, false, null);
  }

  /** Keeps volume data, tombstone and CRDs as given; no wait. */
  public UninstallOptions(boolean keepVolumes, boolean purge, boolean deleteCrds) {
    this(keepVolumes, purge, deleteCrds, null);
  }
}
