package dev.capstan.controller;

import io.kubernetes.client.openapi.models.V1LeaseSpec;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;

/**
 * What a leader-election Lease says, as client-go's {@code LeaderElectionRecord}: who holds it,
 * since when, when it was last renewed, for how long a renewal counts, and how often it changed
 * hands. Pure values: reading a {@link V1LeaseSpec}, the expiry arithmetic, and the record each
 * write of the elector puts into the Lease.
 *
 * <p>A Lease is <em>free</em> when it names no holder (it was given up); it is <em>expired</em>
 * when {@code renewTime + leaseDurationSeconds < now}. Both are taken over at once; a Lease held by
 * another identity is taken over only once expired. The expiry is read on the local clock against
 * the times the holder wrote on its own, so it assumes the candidates' clocks agree to well within
 * the lease duration.
 *
 * @param holder who holds the Lease, or {@code null} when it is free
 * @param acquireTime when the holder took it, or {@code null} when it does not say
 * @param renewTime when the holder last renewed it, or {@code null} when it does not say
 * @param leaseDurationSeconds how long a renewal counts
 * @param leaseTransitions how many times the Lease changed hands
 */
record ElectionRecord(
    @Nullable String holder,
    @Nullable Instant acquireTime,
    @Nullable Instant renewTime,
    int leaseDurationSeconds,
    int leaseTransitions) {

  /** Reads a Lease's spec; an empty holder is none, missing numbers are 0. */
  static ElectionRecord of(@Nullable V1LeaseSpec spec) {
    if (spec == null) {
      return new ElectionRecord(null, null, null, 0, 0);
    }
    String holder = spec.getHolderIdentity();
    return new ElectionRecord(
        holder == null || holder.isEmpty() ? null : holder,
        instant(spec.getAcquireTime()),
        instant(spec.getRenewTime()),
        spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds(),
        spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions());
  }

  /**
   * The record of a Lease that {@code identity} creates at {@code now}: acquired and renewed now,
   * no transition yet.
   */
  static ElectionRecord created(String identity, Instant now, int durationSeconds) {
    return new ElectionRecord(identity, now, now, durationSeconds, 0);
  }

  /**
   * When the holder's last renewal stops counting: {@code renewTime + leaseDurationSeconds}, or
   * {@code null} when the Lease names no renewal time (then it counts as expired).
   */
  @Nullable Instant expiresAt() {
    return renewTime == null ? null : renewTime.plusSeconds(leaseDurationSeconds);
  }

  /** Whether {@code identity} holds the Lease. */
  boolean heldBy(String identity) {
    return identity.equals(holder);
  }

  /**
   * Whether a candidate may take the Lease at {@code now} without being its holder: it is free, or
   * its last renewal stopped counting strictly before {@code now}.
   */
  boolean takeableAt(Instant now) {
    Instant expiry = expiresAt();
    return holder == null || expiry == null || expiry.isBefore(now);
  }

  /**
   * The record with which {@code identity} acquires the Lease at {@code now}: its holder already (a
   * restart under the same identity) keeps its acquire time and the transitions; anyone else takes
   * it over, acquiring it now and counting one more transition.
   */
  ElectionRecord acquiredBy(String identity, Instant now, int durationSeconds) {
    if (heldBy(identity)) {
      return new ElectionRecord(
          identity,
          acquireTime == null ? now : acquireTime,
          now,
          durationSeconds,
          leaseTransitions);
    }
    return new ElectionRecord(identity, now, now, durationSeconds, leaseTransitions + 1);
  }

  /** The record renewed at {@code now}: the same holder and acquire time, a new renew time. */
  ElectionRecord renewedAt(Instant now, int durationSeconds) {
    return new ElectionRecord(holder, acquireTime, now, durationSeconds, leaseTransitions);
  }

  /**
   * The record of a Lease given up at {@code now}, as client-go writes it: no holder, acquired and
   * renewed now for one second, the transitions kept (the next holder counts one more).
   */
  ElectionRecord releasedAt(Instant now) {
    return new ElectionRecord(null, now, now, 1, leaseTransitions);
  }

  /**
   * The spec of a Lease holding this record; the fields the record does not know ({@code
   * preferredHolder}, {@code strategy}) are kept from {@code base}.
   */
  V1LeaseSpec toSpec(@Nullable V1LeaseSpec base) {
    V1LeaseSpec spec =
        new V1LeaseSpec()
            .leaseDurationSeconds(leaseDurationSeconds)
            .leaseTransitions(leaseTransitions);
    if (holder != null) {
      spec.setHolderIdentity(holder);
    }
    if (acquireTime != null) {
      spec.setAcquireTime(OffsetDateTime.ofInstant(acquireTime, ZoneOffset.UTC));
    }
    if (renewTime != null) {
      spec.setRenewTime(OffsetDateTime.ofInstant(renewTime, ZoneOffset.UTC));
    }
    if (base != null) {
      spec.setPreferredHolder(base.getPreferredHolder());
      spec.setStrategy(base.getStrategy());
    }
    return spec;
  }

  private static @Nullable Instant instant(@Nullable OffsetDateTime time) {
    return time == null ? null : time.toInstant();
  }
}
