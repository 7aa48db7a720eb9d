package dev.capstan.release;

/**
 * How an uninstall behaves.
 *
 * @param keepVolumes keep every volume's data, whatever its reclaim policy (un-stamp and record it)
 * @param purge delete every record of the release instead of keeping an {@code UNINSTALLED}
 *     tombstone
 */
public record UninstallOptions(boolean keepVolumes, boolean purge) {
  private static final UninstallOptions DEFAULTS = new UninstallOptions(false, false);

  /** Honour reclaim policies, keep a tombstone. */
  public static UninstallOptions defaults() {
    return DEFAULTS;
  }

  /** A copy with {@code keepVolumes} set. */
  public UninstallOptions withKeepVolumes(boolean keepVolumes) {
    return new UninstallOptions(keepVolumes, purge);
  }

  /** A copy with {@code purge} set. */
  public UninstallOptions withPurge(boolean purge) {
    return new UninstallOptions(keepVolumes, purge);
  }
}
