package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Lease;
import org.jspecify.annotations.Nullable;

/**
 * The operation lease on a release as a store keeps it while someone holds it (or held it and
 * stopped without giving it up: then it has expired).
 *
 * @param lease who holds it, since and until when
 * @param intent the intent its holder named when it took it ({@link Store#keepsLeaseIntents()}), or
 *     {@code null}
 */
public record HeldLease(Lease lease, @Nullable String intent) {
  /** Requires the lease. */
  public HeldLease {
    requireNonNull(lease, "lease");
  }
}
