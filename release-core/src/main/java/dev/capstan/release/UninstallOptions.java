package dev.capstan.release;

/**
 * How an uninstall behaves.
 *
 * @param keepVolumes keep every volume's data, whatever its reclaim policy (un-stamp and record it)
 * @param purge delete every record of the release instead of keeping an {@code UNINSTALLED}
 *     tombstone
 * @param deleteCrds delete the CustomResourceDefinitions the release owns; off by default, since
 *     deleting a CRD deletes every custom resource of it, cluster-wide (they are un-stamped and
 *     kept)
 */
public record UninstallOptions(boolean keepVolumes, boolean purge, boolean deleteCrds) {
  private static final UninstallOptions DEFAULTS = new UninstallOptions(false, false, false);

  /** Honour reclaim policies, keep a tombstone. */
  public static UninstallOptions defaults() {
    return DEFAULTS;
  }

  /** A copy with {@code keepVolumes} set. */
  public UninstallOptions withKeepVolumes(boolean keepVolumes) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds);
  }

  /** A copy with {@code purge} set. */
  public UninstallOptions withPurge(boolean purge) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds);
  }

  /** A copy with {@code deleteCrds} set. */
  public UninstallOptions withDeleteCrds(boolean deleteCrds) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds);
  }

  /** Keeps volume data and tombstone as given; CRDs are kept. */
  public UninstallOptions(boolean keepVolumes, boolean purge) {
    this(keepVolumes, purge, false);
  }
}
