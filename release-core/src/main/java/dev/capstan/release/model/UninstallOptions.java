package dev.capstan.release.model;

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
 * @param deleteNamespaces delete the namespaces the release ensures (its {@code Namespace}
 *     documents), last, as if each carried {@code capstan.dev/delete-with-release: "true"}; off by
 *     default: an ensured namespace is shared and kept. Deleting a namespace deletes everything in
 *     it, so one that another release also ensures, and the release's own namespace while its
 *     records are kept (without {@code purge}), are kept even so (ARCHITECTURE.md, "Ensured
 *     namespaces")
 */
public record UninstallOptions(
    boolean keepVolumes,
    boolean purge,
    boolean deleteCrds,
    @Nullable Duration waitFor,
    boolean deleteNamespaces) {
  private static final UninstallOptions DEFAULTS =
      new UninstallOptions(false, false, false, null, false);

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
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces);
  }

  /** A copy with {@code purge} set. */
  public UninstallOptions withPurge(boolean purge) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces);
  }

  /** A copy with {@code deleteCrds} set. */
  public UninstallOptions withDeleteCrds(boolean deleteCrds) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces);
  }

  /** A copy that waits up to {@code waitFor} for deletions to finish ({@code null}: no wait). */
  public UninstallOptions withWait(@Nullable Duration waitFor) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces);
  }

  /** A copy with {@code deleteNamespaces} set. */
  public UninstallOptions withDeleteNamespaces(boolean deleteNamespaces) {
    return new UninstallOptions(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces);
  }

  /** Keeps volume data, tombstone and CRDs as given, waits as given; namespaces are kept. */
  public UninstallOptions(
      boolean keepVolumes, boolean purge, boolean deleteCrds, @Nullable Duration waitFor) {
    this(keepVolumes, purge, deleteCrds, waitFor, false);
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
