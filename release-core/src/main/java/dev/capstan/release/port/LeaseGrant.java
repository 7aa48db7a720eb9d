package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Lease;
import org.jspecify.annotations.Nullable;

/**
 * A lease acquired on a release.
 *
 * @param lease the lease now held
 * @param takenOver the expired lease that this one replaced (another holder's, or this holder's own
 *     left by an operation that stopped without giving it up), or {@code null}
 * @param namespaceExists whether taking the lease proved that the release's namespace exists in the
 *     cluster its objects go to (a Kubernetes Lease object lives in it); the controller then does
 *     not observe that namespace again when the release merely references it
 * @param version the store's version of the lease as this grant wrote it (a Kubernetes Lease's
 *     resourceVersion, a row version): the first renewal is conditioned on it ({@link
 *     Store#renewLease}), so it succeeds only if nobody wrote the lease since
 * @param takenOverIntent the intent the expired lease of {@code takenOver} named, when the store
 *     {@link Store#keepsLeaseIntents() keeps intents} and it named one; else {@code null}
 */
public record LeaseGrant(
    Lease lease,
    @Nullable Lease takenOver,
    boolean namespaceExists,
    String version,
    @Nullable String takenOverIntent) {
  /** Requires the lease and the version. */
  public LeaseGrant {
    requireNonNull(lease, "lease");
    requireNonNull(version, "version");
  }

  /**
   * A grant that hands over no intent.
   *
   * @param lease the lease now held
   * @param takenOver the expired lease replaced, or {@code null}
   * @param namespaceExists whether taking the lease proved that the release's namespace exists
   * @param version the store's version of the lease as written
   */
  public LeaseGrant(
      Lease lease, @Nullable Lease takenOver, boolean namespaceExists, String version) {
    this(lease, takenOver, namespaceExists, version, null);
  }

  /**
   * A grant that proves nothing about the release's namespace (a store outside the cluster).
   *
   * @param lease the lease now held
   * @param takenOver the expired lease replaced, or {@code null}
   * @param version the store's version of the lease as written
   */
  public LeaseGrant(Lease lease, @Nullable Lease takenOver, String version) {
    this(lease, takenOver, false, version, null);
  }
}
