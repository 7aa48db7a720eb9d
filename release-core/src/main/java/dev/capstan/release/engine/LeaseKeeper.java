package dev.capstan.release.engine;

import dev.capstan.common.Backoff;
import dev.capstan.common.Sleeper;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseLockedException;
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
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Holds the operation lease of one release operation: takes it (queueing behind a live holder for
 * up to the configured wait), renews it in the background, and gives it up. Every renewal is
 * conditioned on the keeper's own last write of the lease ({@link Store#renewLease} with the
 * version of that write), so it succeeds exactly when nobody else wrote the lease since, whatever
 * its expiry. The keeper knows when the lease expires by its own clock: from the grant, then from
 * each successful renewal ({@code now + duration}, where {@code now} is read before the renewal is
 * sent, so the local expiry is never later than the store's).
 *
 * <p>{@link #checkHeld()}, called before every write, fails once a renewal was refused (another
 * holder wrote the lease: a takeover). Once the local expiry has passed (the renewals ran late, the
 * process was starved or stalled, the store was unreachable) another holder may take the lease over
 * at any moment, so no write may go out on the old expiry: {@code checkHeld} first renews the lease
 * itself, waiting for a renewal already in flight rather than racing it, and goes on only if that
 * renewal succeeded (nobody had taken the lease; the operation keeps it) and fails otherwise. A
 * renewal that fails for another reason (the store is briefly unreachable) is retried at the next
 * period while the lease lasts. See ARCHITECTURE.md, "Leases and retries".
 *
 * <p>An interrupt of the operation's thread (the one that runs {@link #holding} or {@link #run}) is
 * a request to stop: {@code checkHeld} then fails, on that thread and on the threads writing for it
 * ({@link Parallel}), and keeps failing, so no write starts after it; the operation unwinds as
 * after any failed write: it records its outcome and gives the lease up ({@link #close}), with the
 * thread's interrupt status cleared meanwhile (a store's I/O on an interrupted thread, an HTTP
 * client's or a file channel's, would fail at once) and set again after.
 */
public final class LeaseKeeper implements AutoCloseable {
  /** How {@link #acquire} polls a held lease while waiting: 200 ms doubling to 2 s. */
  public static final Backoff POLL =
      new Backoff(
          Duration.ofMillis(200),
          Duration.ofSeconds(2),
          Integer.MAX_VALUE,
          Duration.ofDays(365),
          new Random());

  /** How long {@link #close} waits for a renewal in flight before giving the lease up. */
  static final Duration RENEWAL_DRAIN = Duration.ofSeconds(5);

  /**
   * How a lease is taken and kept.
   *
   * @param askHolderToYield whether an operation waiting for the lease asks its holder to yield it
   *     ({@link LeaseYield}), where the store carries such requests
   */
  public record Terms(
      Store store,
      String holder,
      Clock clock,
      Duration duration,
      Duration renewEvery,
      Duration maxWait,
      Backoff poll,
      Sleeper sleeper,
      boolean askHolderToYield) {}

  private final Terms terms;
  private final String namespace;
  private final String name;
  private final LeaseGrant grant;
  private final @Nullable LeaseIntent intent;
  private final String attempt;
  private final Consumer<ReleaseEvent> events;
  private final ScheduledExecutorService renewer;

  /** One renewal at a time: the renewer's, or the one {@link #checkHeld} sends itself. */
  private final ReentrantLock renewing = new ReentrantLock();

  private volatile @Nullable ReleaseLockedException lost;

  /** The thread the operation runs on, once it {@linkplain #holding runs} under the lease. */
  private volatile @Nullable Thread operator;

  /** Set once the operation's thread was seen interrupted: no write may start any more. */
  private volatile boolean stopped;

  private volatile @Nullable RuntimeException lastRenewalError;
  private volatile Instant renewedAt;
  private volatile Instant expiresAt;

  /** The store's version of the lease as this keeper last wrote it. */
  private volatile String version;

  private boolean forget;

  /** Set when the operation could not record its outcome: the lease keeps its intent. */
  private volatile boolean keepIntent;

  private int renewalFailures;

  /** A keeper of {@code grant}, renewing it from now on; {@link LeaseWait} takes the lease. */
  LeaseKeeper(
      Terms terms,
      String namespace,
      String name,
      LeaseGrant grant,
      @Nullable LeaseIntent intent,
      String attempt,
      Consumer<ReleaseEvent> events) {
    this.terms = terms;
    this.intent = intent;
    this.attempt = attempt;
    this.namespace = namespace;
    this.name = name;
    this.grant = grant;
    this.events = events;
    this.renewedAt = grant.lease().acquiredAt();
    this.expiresAt = grant.lease().expiresAt();
    this.version = grant.version();
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("capstan-lease-" + namespace + "-" + name));
    long period = Math.max(1, terms.renewEvery().toMillis());
    var unused = renewer.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
  }

  /** The renewer's turn: renews unless a renewal is refused already. */
  private void renew() {
    renewing.lock();
    try {
      if (lost == null) {
        renewOnce();
      }
    } finally {
      renewing.unlock();
    }
  }

  /**
   * Renews the lease, conditioned on this keeper's last write of it; on success moves the local
   * expiry, on a refusal (someone else wrote the lease) marks it lost, on another failure keeps it
   * for the next try. Called with {@link #renewing} held.
   */
  private void renewOnce() {
    Instant now = terms.clock().instant();
    try {
      version =
          terms.store().renewLease(namespace, name, terms.holder(), version, now, terms.duration());
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
  public static LeaseKeeper acquire(
      Terms terms, String namespace, String name, Consumer<ReleaseEvent> events) {
    return LeaseWait.acquire(terms, namespace, name, null, events);
  }

  /**
   * The requests to yield this lease that operations waiting for it make ({@link LeaseYield}), read
   * on this keeper's renewer thread once asked; closed by the caller when its operation ends.
   */
  LeaseYield yieldRequests() {
    return LeaseYield.heldBy(terms.store(), namespace, name, terms.holder(), renewer);
  }

  public LeaseGrant grant() {
    return grant;
  }

  /**
   * The intent the store keeps with this lease, or {@code null} when it keeps none (the store does
   * not keep intents, the operation named none, or it was too long): the operation then records its
   * intent as a revision.
   */
  @Nullable LeaseIntent intent() {
    return intent;
  }

  /**
   * The id of the operation holding this lease: its intent's, when it named one. Every record the
   * operation writes carries it ({@code Release.attempt}).
   */
  String attempt() {
    return attempt;
  }

  /**
   * Keeps the lease's intent when the lease is given up: the operation could not record its outcome
   * (the store failed), so the intent, or its {@code PENDING} record, is the only trace of what it
   * wrote. {@link #close} then leaves the lease in place, expired at once rather than deleted (or,
   * when even that write fails, lapsing at its expiry), and the next operation takes it over and
   * records the attempt ({@code Takeover.recover}).
   */
  void keepIntent() {
    keepIntent = true;
  }

  /** The intent the expired lease this one took over named, if it named one that can be read. */
  @Nullable LeaseIntent takenOverIntent() {
    return grant.takenOver() == null ? null : LeaseIntent.decode(grant.takenOverIntent());
  }

  /** Deletes the lease object when closing (after a purge). */
  void forgetOnClose() {
    forget = true;
  }

  private String release() {
    return namespace + "/" + name;
  }

  /**
   * Returns when the operation still holds the lease and may write: within the expiry of the last
   * successful renewal by this keeper's clock, or, once that passed, after a renewal conditioned on
   * the keeper's own last write succeeded (nobody took the lease meanwhile; event {@link
   * ReleaseEvent.Warning}). A renewal in flight is waited for (for up to a lease duration) rather
   * than raced.
   *
   * @throws ReleaseException naming what happened, when a renewal was refused (the lease was taken
   *     over since), or the lease expired and could not be renewed, or the operation's thread (or
   *     the calling thread) was interrupted (its interrupt status is left set); the operation must
   *     not write again
   */
  public void checkHeld() {
    throwIfStopped();
    checkNotLost();
  }

  /**
   * Returns when the operation still holds the lease, as {@link #checkHeld} does, even after the
   * operation was interrupted: an interrupted cast records its failure when it recorded no pending
   * revision (the lease then names its intent).
   *
   * @throws ReleaseException when the lease was taken over since, or expired and could not be
   *     renewed
   */
  void checkNotLost() {
    throwIfLost();
    if (terms.clock().instant().isBefore(expiresAt)) {
      return;
    }
    // Past the local expiry another holder may take the lease over at any moment: no write goes
    // out until a renewal conditioned on this keeper's last write proves nobody did.
    try {
      if (!renewing.tryLock(terms.duration().toMillis(), TimeUnit.MILLISECONDS)) {
        throw expired("a renewal in flight did not return within " + terms.duration());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReleaseException(
          "interrupted while renewing the operation lease on " + release(), e);
    }
    try {
      throwIfLost();
      Instant expired = expiresAt;
      Instant before = renewedAt;
      if (terms.clock().instant().isBefore(expired)) {
        return; // the renewer renewed it meanwhile
      }
      renewOnce();
      throwIfLost();
      if (!terms.clock().instant().isBefore(expiresAt)) {
        RuntimeException renewal = lastRenewalError;
        throw expired(renewal == null ? null : "renewal failed: " + renewal.getMessage());
      }
      events.accept(
          new ReleaseEvent.Warning(
              release(),
              "renewed it late: the operation lease expired at "
                  + expired
                  + " by this process's clock (last renewed at "
                  + before
                  + "), and nobody had taken it over"));
    } finally {
      renewing.unlock();
    }
  }

  /**
   * Fails once the operation was interrupted: the calling thread or the operation's thread is
   * interrupted now, or was seen so by an earlier check (the operation's thread may have cleared
   * its status since, as a wait that throws {@link InterruptedException} does).
   */
  private void throwIfStopped() {
    Thread op = operator;
    if (!stopped
        && (Thread.currentThread().isInterrupted() || (op != null && op.isInterrupted()))) {
      stopped = true;
    }
    if (stopped) {
      throw interrupted(null);
    }
  }

  /**
   * Stops the operation after its thread's wait was interrupted ({@code cause}, which cleared the
   * thread's interrupt status): from now on {@link #checkHeld} fails.
   *
   * @return the failure to throw
   */
  ReleaseException stop(InterruptedException cause) {
    stopped = true;
    return interrupted(cause);
  }

  private ReleaseException interrupted(@Nullable InterruptedException cause) {
    return new ReleaseException(
        "the operation on " + release() + " was interrupted; stopped before the next write", cause);
  }

  private void throwIfLost() {
    ReleaseLockedException e = lost;
    if (e == null) {
      return;
    }
    String who =
        e.holder().equals(terms.holder())
            ? "another process took it under the same holder name, " + e.holder()
            : e.holder().equals("nobody")
                ? "it was taken over and given up since"
                : e.holder() + " took it over";
    throw new ReleaseException(
        "lost the operation lease on "
            + release()
            + ": "
            + who
            + " (this process last renewed it at "
            + renewedAt
            + ", lasting until "
            + expiresAt
            + " by its clock); stopped before the next write",
        e);
  }

  private ReleaseException expired(@Nullable String why) {
    return new ReleaseException(
        "the operation lease on "
            + release()
            + " expired at "
            + expiresAt
            + " (last renewed at "
            + renewedAt
            + (why == null ? "" : "; " + why)
            + "); stopped before the next write");
  }

  /** Ends the lease now, keeping it and its intent for the next holder to take over. */
  private void expireKeepingIntent() {
    if (lost != null) {
      return; // someone took it over already: its intent is theirs now
    }
    Instant now = terms.clock().instant();
    try {
      terms.store().renewLease(namespace, name, terms.holder(), version, now, Duration.ZERO);
      events.accept(
          new ReleaseEvent.Warning(
              release(),
              "kept the operation lease, expired, with what this operation was doing: the next"
                  + " operation on the release takes it over and records it"));
    } catch (RuntimeException e) {
      events.accept(
          new ReleaseEvent.Warning(
              release(),
              "kept the operation lease with what this operation was doing; it lapses at "
                  + expiresAt
                  + ", and the next operation on the release then takes it over and records it ("
                  + e.getMessage()
                  + ")"));
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
  public <T> T run(java.util.function.Function<LeaseKeeper, T> body) {
    T result = holding(body);
    close();
    return result;
  }

  /**
   * Runs {@code body} under the lease and keeps it after a normal return (the caller goes on
   * holding it); gives it up after a {@link RuntimeException}, and after an {@link Error} only
   * {@linkplain #abandon() abandons} it. The calling thread is the operation's from now on: an
   * interrupt of it stops the operation before its next write.
   */
  <T> T holding(java.util.function.Function<LeaseKeeper, T> body) {
    operator = Thread.currentThread();
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
   * Runs {@code body} under {@code lease} as {@link #holding} does, or as it is when the operation
   * holds no lease yet ({@code null}).
   */
  static <T> T holdingIfAny(@Nullable LeaseKeeper lease, java.util.function.Supplier<T> body) {
    return lease == null ? body.get() : lease.holding(held -> body.get());
  }

  /**
   * Stops renewing and gives the lease up. A renewal in flight is let finish first (for up to
   * {@link #RENEWAL_DRAIN}): a release sent beside it is refused, since the renewal changed the
   * lease, and costs a read and a second delete where one request does. On an interrupted thread
   * too: the interrupt status is cleared meanwhile and set again after. After {@link #keepIntent}
   * the lease is not deleted: one renewal conditioned on the keeper's last write sets its expiry to
   * now, so the next operation takes it over at once, with its intent.
   */
  @Override
  public void close() {
    Uninterrupted.run(
        () -> {
          boolean interrupted = false;
          renewer.shutdown();
          try {
            if (!renewer.awaitTermination(RENEWAL_DRAIN.toMillis(), TimeUnit.MILLISECONDS)) {
              renewer.shutdownNow();
            }
          } catch (InterruptedException e) {
            renewer.shutdownNow();
            interrupted = true; // set again once the lease is given up
          }
          if (keepIntent) {
            expireKeepingIntent();
          } else {
            try {
              terms.store().releaseLease(namespace, name, terms.holder(), forget);
            } catch (RuntimeException e) {
              events.accept(
                  new ReleaseEvent.Warning(
                      release(),
                      "could not release the lease (it lapses at its expiry): " + e.getMessage()));
            }
          }
          if (interrupted) {
            Thread.currentThread().interrupt();
          }
        });
  }
}
