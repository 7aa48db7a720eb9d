package dev.capstan.release.model;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
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
 * @param expectedRevision uninstall only while the release's latest revision is this one, as it
 *     stands under the uninstall's lease: a revision recorded since (a cast by someone else, a
 *     rollback) fails the uninstall with a {@link dev.capstan.release.error.StaleRecordException}
 *     before anything is deleted; {@code null} (the default) uninstalls whatever the latest
 *     revision is. A caller that decided from a record it read that the release is its own to
 *     uninstall pins that record's revision so
 * @param allowedHooks the hooks' objects outside the release's namespace (cluster-scoped, or in
 *     another namespace) that its record's {@code pre-delete} and {@code post-delete} hooks may
 *     write: a record is as trusted as whoever may write it, and a hook is written with the
 *     uninstaller's rights, so one not named here refuses the uninstall before anything is written
 *     ({@link dev.capstan.release.plan.HookPlan#refusal}); none by default
 */
public record UninstallOptions(
    boolean keepVolumes,
    boolean purge,
    boolean deleteCrds,
    @Nullable Duration waitFor,
    boolean deleteNamespaces,
    @Nullable Integer expectedRevision,
    Set<ResourceRef> allowedHooks) {
  private static final UninstallOptions DEFAULTS =
      new UninstallOptions(false, false, false, null, false, null, Set.of());

  /** Requires a positive wait and a revision from 1, when given. */
  public UninstallOptions {
    allowedHooks = Set.copyOf(allowedHooks);
    if (waitFor != null && (waitFor.isNegative() || waitFor.isZero())) {
      throw new IllegalArgumentException("uninstall waitFor must be positive: " + waitFor);
    }
    if (expectedRevision != null && expectedRevision < 1) {
      throw new IllegalArgumentException(
          "uninstall expectedRevision must be at least 1: " + expectedRevision);
    }
  }

  /** Honour reclaim policies, keep a tombstone, do not wait. */
  public static UninstallOptions defaults() {
    return DEFAULTS;
  }

  /** A copy with {@code keepVolumes} set. */
  public UninstallOptions withKeepVolumes(boolean keepVolumes) {
    return new UninstallOptions(
        keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, expectedRevision, allowedHooks);
  }

  /** A copy with {@code purge} set. */
  public UninstallOptions withPurge(boolean purge) {
    return new UninstallOptions(
        keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, expectedRevision, allowedHooks);
  }

  /** A copy with {@code deleteCrds} set. */
  public UninstallOptions withDeleteCrds(boolean deleteCrds) {
    return new UninstallOptions(
        keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, expectedRevision, allowedHooks);
  }

  /** A copy that waits up to {@code waitFor} for deletions to finish ({@code null}: no wait). */
  public UninstallOptions withWait(@Nullable Duration waitFor) {
    return new UninstallOptions(
        keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, expectedRevision, allowedHooks);
  }

  /** A copy with {@code deleteNamespaces} set. */
  public UninstallOptions withDeleteNamespaces(boolean deleteNamespaces) {
    return new UninstallOptions(
        keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, expectedRevision, allowedHooks);
  }

  /**
   * A copy that uninstalls only while the latest revision is {@code revision} ({@code null}:
   * whatever it is).
   */
  public UninstallOptions withExpectedRevision(@Nullable Integer revision) {
    return new UninstallOptions(
        keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, revision, allowedHooks);
  }

  /**
   * A copy that lets the record's delete hooks write these objects outside the release's namespace
   * (replacing those allowed before).
   */
  public UninstallOptions withAllowedHooks(Collection<ResourceRef> hooks) {
    return new UninstallOptions(
        keepVolumes,
        purge,
        deleteCrds,
        waitFor,
        deleteNamespaces,
        expectedRevision,
        Set.copyOf(hooks));
  }

  /** As given, allowing no hook outside the release's namespace. */
  public UninstallOptions(
      boolean keepVolumes,
      boolean purge,
      boolean deleteCrds,
      @Nullable Duration waitFor,
      boolean deleteNamespaces,
      @Nullable Integer expectedRevision) {
    this(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, expectedRevision, Set.of());
  }

  /** As given, whatever the latest revision is. */
  public UninstallOptions(
      boolean keepVolumes,
      boolean purge,
      boolean deleteCrds,
      @Nullable Duration waitFor,
      boolean deleteNamespaces) {
    this(keepVolumes, purge, deleteCrds, waitFor, deleteNamespaces, null);
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
