package dev.capstan.release;

import dev.capstan.common.Backoff;
import dev.capstan.common.Sleeper;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.internal.DaemonThreads;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Holds the operation lease of one release operation: takes it (queueing behind a live holder for
 * up to the configured wait), renews it in the background, and gives it up. The keeper knows when
 * the lease expires by its own clock: from the grant, then from each successful renewal ({@code now
 * + duration}, where {@code now} is read before the renewal is sent, so the local expiry is never
 * later than the store's). {@link #checkHeld()} fails once another holder took the lease (a renewal
 * was refused) or once that local expiry passed (renewals failed for a whole lease duration, or the
 * process was stalled): the operation stops before its next write. A renewal that fails for another
 * reason (the store is briefly unreachable) is retried at the next period while the lease lasts.
 * See ARCHITECTURE.md, "Leases and retries".
 */
final class LeaseKeeper implements AutoCloseable {
  /** How {@link #acquire} polls a held lease while waiting: 200 ms doubling to 2 s. */
  static final Backoff POLL =
      new Backoff(
          Duration.ofMillis(200),
          Duration.ofSeconds(2),
          Integer.MAX_VALUE,
          Duration.ofDays(365),
          new Random());

  /** How long {@link #close} waits for a renewal in flight before giving the lease up. */
  static final Duration RENEWAL_DRAIN = Duration.ofSeconds(5);

  /** How a lease is taken and kept. */
  record Terms(
      Store store,
      String holder,
      Clock clock,
      Duration duration,
      Duration renewEvery,
      Duration maxWait,
      Backoff poll,
      Sleeper sleeper) {}

  private final Terms terms;
  private final String namespace;
  private final String name;
  private final LeaseGrant grant;
  private final Consumer<ReleaseEvent> events;
  private final ScheduledExecutorService renewer;
  private volatile @Nullable RuntimeException lost;
  private volatile @Nullable RuntimeException lastRenewalError;
  private volatile Instant renewedAt;
  private volatile Instant expiresAt;
  private boolean forget;
  private int renewalFailures;

  private LeaseKeeper(
      Terms terms, String namespace, String name, LeaseGrant grant, Consumer<ReleaseEvent> events) {
    this.terms = terms;
    this.namespace = namespace;
    this.name = name;
    this.grant = grant;
    this.events = events;
    this.renewedAt = grant.lease().acquiredAt();
    this.expiresAt = grant.lease().expiresAt();
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("capstan-lease-" + namespace + "-" + name));
    long period = Math.max(1, terms.renewEvery().toMillis());
    var unused = renewer.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
  }

  private void renew() {
    if (lost != null) {
      return;
    }
    Instant now = terms.clock().instant();
    try {
      terms.store().renewLease(namespace, name, terms.holder(), now, terms.duration());
      renewedAt = now;
      expiresAt = now.plus(terms.duration());
      lastRenewalError = null;
      renewalFailures = 0;
    } catch (ReleaseLockedException e) {
      lost = e;
    } catch (RuntimeException e) {
      lastRenewalError = e;
      renewalFailures++;
      events.accept(
          new ReleaseEvent.Retrying(
              release(),
              "renew the lease",
              renewalFailures + 1,
              terms.renewEvery(),
              "renewal failed (the lease lasts until " + expiresAt + "): " + e.getMessage()));
    }
  }

  /**
   * Takes the lease; while another holder has it, polls with backoff for up to the configured wait.
   *
   * @throws ReleaseLockedException if another holder has it (still, after the wait)
   */
  static LeaseKeeper acquire(
      Terms terms, String namespace, String name, Consumer<ReleaseEvent> events) {
    String release = namespace + "/" + name;
    Clock clock = terms.clock();
    Instant deadline = clock.instant().plus(terms.maxWait());
    LeaseGrant grant;
    for (int retry = 1; ; retry++) {
      try {
        grant =
            terms
                .store()
                .acquireLease(namespace, name, terms.holder(), clock.instant(), terms.duration());
        break;
      } catch (ReleaseLockedException e) {
        Instant now = clock.instant();
        if (!now.isBefore(deadline)) {
          throw e;
        }
        if (retry == 1) {
          events.accept(
              new ReleaseEvent.WaitingForLease(
                  release, e.holder(), e.expiresAt(), Duration.between(now, deadline)));
        }
        Duration pause = terms.poll().delay(Math.min(retry, 8));
        Duration left = Duration.between(now, deadline);
        pause(terms.sleeper(), pause.compareTo(left) < 0 ? pause : left, release);
      }
    }
    events.accept(new ReleaseEvent.LeaseAcquired(release, terms.holder(), grant.takenOver()));
    return new LeaseKeeper(terms, namespace, name, grant, events);
  }

  private static void pause(Sleeper sleeper, Duration d, String release) {
    try {
      sleeper.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReleaseException("interrupted while waiting for the lease on " + release, e);
    }
  }

  LeaseGrant grant() {
    return grant;
  }

  /** Deletes the lease object when closing (after a purge). */
  void forgetOnClose() {
    forget = true;
  }

  private String release() {
    return namespace + "/" + name;
  }

  /**
   * Throws if the lease may be someone else's now: a renewal was refused, or the lease expired by
   * this keeper's clock.
   *
   * @throws ReleaseException naming what happened; the operation must not write again
   */
  void checkHeld() {
    RuntimeException e = lost;
    if (e != null) {
      throw new ReleaseException(
          "lost the operation lease on "
              + release()
              + ": "
              + e.getMessage()
              + "; stopped before the next write",
          e);
    }
    Instant now = terms.clock().instant();
    Instant expiry = expiresAt;
    if (!now.isBefore(expiry)) {
      RuntimeException renewal = lastRenewalError;
      throw new ReleaseException(
          "the operation lease on "
              + release()
              + " expired at "
              + expiry
              + " (last renewed at "
              + renewedAt
              + (renewal == null ? "" : "; renewal failed: " + renewal.getMessage())
              + "); stopped before the next write");
    }
  }

  /**
   * Stops renewing without giving the lease up: after an {@link Error} the process is treated as
   * dead, and the lease lapses at its expiry, as it would after a crash.
   */
  void abandon() {
    renewer.shutdownNow();
  }

  /**
   * Runs {@code body} under the lease. The lease is given up after a normal return or a {@link
   * RuntimeException}; after an {@link Error} it is only {@linkplain #abandon() abandoned}.
   */
  <T> T run(java.util.function.Function<LeaseKeeper, T> body) {
    T result = holding(body);
    close();
    return result;
  }

  /**
   * Runs {@code body} under the lease and keeps it after a normal return (the caller goes on
   * holding it); gives it up after a {@link RuntimeException}, and after an {@link Error} only
   * {@linkplain #abandon() abandons} it.
   */
  <T> T holding(java.util.function.Function<LeaseKeeper, T> body) {
    try {
      return body.apply(this);
    } catch (RuntimeException e) {
      close();
      throw e;
    } catch (Error e) {
      abandon();
      throw e;
    }
  }

  /**
   * Stops renewing and gives the lease up. A renewal in flight is let finish first (for up to
   * {@link #RENEWAL_DRAIN}): a release sent beside it is refused, since the renewal changed the
   * lease, and costs a read and a second delete where one request does.
   */
  @Override
  public void close() {
    renewer.shutdown();
    try {
      if (!renewer.awaitTermination(RENEWAL_DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
        renewer.shutdownNow();
      }
    } catch (InterruptedException e) {
      renewer.shutdownNow();
      Thread.currentThread().interrupt();
    }
    try {
      terms.store().releaseLease(namespace, name, terms.holder(), forget);
    } catch (RuntimeException e) {
      events.accept(
          new ReleaseEvent.Warning(
              release(),
              "could not release the lease (it lapses at its expiry): " + e.getMessage()));
    }
  }
}
