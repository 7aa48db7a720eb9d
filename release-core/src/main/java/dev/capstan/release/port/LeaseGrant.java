package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Lease;
import org.jspecify.annotations.Nullable;

/**
 * A lease acquired on a release.
 *
 * @param lease the lease now held
 * @param takenOver the expired lease of another holder that this one replaced, or {@code null}
 */
public record LeaseGrant(Lease lease, @Nullable Lease takenOver) {
  /** Requires the lease. */
  public LeaseGrant {
    requireNonNull(lease, "lease");
  }
}
