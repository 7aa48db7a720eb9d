package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Lease;
import org.jspecify.annotations.Nullable;

/**
 * A lease acquired on a release.
 *
 * @param lease the lease now held
 * @param takenOver the expired lease of another holder that this one replaced, or {@code null}
 * @param namespaceExists whether taking the lease proved that the release's namespace exists in the
 *     cluster its objects go to (a Kubernetes Lease object lives in it); the controller then does
 *     not observe that namespace again when the release merely references it
 */
public record LeaseGrant(Lease lease, @Nullable Lease takenOver, boolean namespaceExists) {
  /** Requires the lease. */
  public LeaseGrant {
    requireNonNull(lease, "lease");
  }

  /**
   * A grant that proves nothing about the release's namespace (a store outside the cluster).
   *
   * @param lease the lease now held
   * @param takenOver the expired lease replaced, or {@code null}
   */
  public LeaseGrant(Lease lease, @Nullable Lease takenOver) {
    this(lease, takenOver, false);
  }
}
