package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * The operation lease on a release: at most one caster or uninstaller works on a release at a time.
 *
 * @param holder who holds it
 * @param acquiredAt when it was taken
 * @param expiresAt when it lapses unless renewed; after that another holder may take it over
 */
public record Lease(String holder, Instant acquiredAt, Instant expiresAt) {
  /** Requires every part and an expiry after the acquisition. */
  public Lease {
    requireNonNull(holder, "holder");
    requireNonNull(acquiredAt, "acquiredAt");
    requireNonNull(expiresAt, "expiresAt");
    if (expiresAt.isBefore(acquiredAt)) {
      throw new IllegalArgumentException(
          "lease expiresAt must not be before acquiredAt: " + expiresAt + " < " + acquiredAt);
    }
  }

  /** Whether the lease has lapsed at {@code now}. */
  public boolean expiredAt(Instant now) {
    return !now.isBefore(expiresAt);
  }
}
