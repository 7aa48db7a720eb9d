package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.common.Durations;
import dev.capstan.common.Escapes;
import dev.capstan.common.Sleeper;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election among the controller's replicas on one {@code coordination.k8s.io/v1} Lease, as
 * client-go's {@code leaderelection} does it: at most one replica leads at a time, and when it dies
 * another takes over once its lease expires.
 *
 * <p>{@link #start} runs the election on a daemon thread, in rounds. A candidate reads the Lease
 * and creates it when it is absent; when it is present, the candidate takes it only if it is its
 * own already, free or expired ({@link ElectionRecord#takeableAt}), and then writes itself in as
 * holder. Every write is a compare-and-set on the resourceVersion it read, so of two candidates at
 * most one wins: a 409 means another one did. The winner calls {@link Listener#startedLeading} and
 * renews every renew period with one UPDATE on the resourceVersion of its own last write (no read
 * first). A renewal refused with 409 is followed by a read: a Lease that still names the leader
 * (its own write that landed unanswered) is renewed on the version read; one that names another
 * holder, or is gone, is lost. A renewal that fails otherwise is retried every retry period while
 * the next try would still come before the lease expires; after that the leader stops leading,
 * before the lease expires, so another candidate that takes over after the expiry never overlaps
 * with it. Losing calls {@link Listener#stoppedLeading}, and the replica becomes a candidate again.
 *
 * <p>Fields written, as client-go: {@code holderIdentity}, {@code acquireTime} (when the holder
 * took the Lease), {@code renewTime}, {@code leaseDurationSeconds}, and {@code leaseTransitions},
 * one more on every change of holder; times in microseconds, as the API server keeps them. Unlike
 * client-go, which times an expiry from when it last saw the Lease change, a candidate reads the
 * expiry from the Lease's {@code renewTime}, so the replicas' clocks must agree to well within the
 * lease duration.
 *
 * <p>{@link #close} gives the Lease up, so that another replica takes over at once instead of after
 * the lease duration: one UPDATE, on the resourceVersion of the leader's last write, that clears
 * {@code holderIdentity} (and, as client-go, sets a one-second duration). The Lease is updated
 * rather than deleted so that it keeps its {@code leaseTransitions} count, and the replicas need
 * only get, create and update on Leases; the resourceVersion makes sure it never clears a Lease
 * someone else took meanwhile.
 *
 * <p>API errors other than the 404s and 409s above are logged at WARN, one line naming the Lease
 * and the HTTP status, and the round is retried after the retry period; the election thread never
 * ends on them. The listener is called on the election thread and must return promptly: renewals
 * wait for it. A listener that throws, or overflows the stack, is logged at WARN and the election
 * goes on.
 */
final class LeaderElection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /** What a replica does when it starts and stops leading. */
  interface Listener {
    /** This replica leads from now on: start the work only a leader does. */
    void startedLeading();

    /** This replica does not lead any longer: stop the work only a leader does. */
    void stoppedLeading();
  }

  /**
   * How long a renewal counts and how often the election writes.
   *
   * @param leaseDuration how long a renewal counts (the Lease's {@code leaseDurationSeconds}):
   *     whole seconds, at least 1 s
   * @param renewPeriod how often the leader renews; shorter than the lease duration
   * @param retryPeriod how often a candidate tries to acquire, and a failed call is retried;
   *     shorter than the lease duration
   */
  record Timing(Duration leaseDuration, Duration renewPeriod, Duration retryPeriod) {
    /** Checks every part. */
    Timing {
      requireNonNull(leaseDuration, "leaseDuration");
      requireNonNull(renewPeriod, "renewPeriod");
      requireNonNull(retryPeriod, "retryPeriod");
      if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0
          || leaseDuration.toNanos() % 1_000_000_000L != 0) {
        throw new IllegalArgumentException(
            "the lease duration must be whole seconds, at least 1s (the Lease's"
                + " leaseDurationSeconds): "
                + Durations.format(leaseDuration));
      }
      requireShorter("renew period", renewPeriod, leaseDuration);
      requireShorter("retry period", retryPeriod, leaseDuration);
    }

    /** client-go's defaults: a 15 s lease, renewed every 5 s, tries every 2 s. */
    static Timing defaults() {
      return new Timing(Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(2));
    }

    private static void requireShorter(String what, Duration period, Duration leaseDuration) {
      if (period.isNegative() || period.isZero() || period.compareTo(leaseDuration) >= 0) {
        throw new IllegalArgumentException(
            "the "
                + what
                + " must be positive and shorter than the lease duration ("
                + Durations.format(leaseDuration)
                + "): "
                + Durations.format(period));
      }
    }

    private int leaseSeconds() {
      return (int) leaseDuration.toSeconds();
    }
  }

  private enum State {
    NEW,
    RUNNING,
    CLOSING,
    HALTING
  }

  private final LeaseApi leases;
  private final String namespace;
  private final String name;
  private final String identity;
  private final Timing timing;
  private final Clock clock;
  private final Sleeper sleeper;
  private final CountDownLatch stopping = new CountDownLatch(1);

  private volatile State state = State.NEW;
  private volatile boolean leading;
  private @Nullable Thread thread;

  /** The Lease as this replica last wrote it, while it leads; touched by the election alone. */
  private @Nullable V1Lease written;

  /**
   * An election with client-go's default timing.
   *
   * @param client the client of the cluster the Lease is in
   * @param namespace the Lease's namespace
   * @param name the Lease's name
   * @param identity this replica, unique among the candidates (e.g. its pod name)
   */
  LeaderElection(ApiClient client, String namespace, String name, String identity) {
    this(client, namespace, name, identity, Timing.defaults());
  }

  /**
   * An election with the timing given, on the system clock; it pauses by waiting on its own stop
   * signal, so {@link #close} cuts a pause short.
   */
  LeaderElection(ApiClient client, String namespace, String name, String identity, Timing timing) {
    this(LeaseApi.of(client), namespace, name, identity, timing, Clock.systemUTC(), null);
  }

  /**
   * An election on any Lease API, clock and sleeper, for tests.
   *
   * @param sleeper how the election thread pauses between rounds; {@code null} to wait on its stop
   *     signal (a sleeper given here should return soon, as {@link #close} waits for it)
   */
  LeaderElection(
      LeaseApi leases,
      String namespace,
      String name,
      String identity,
      Timing timing,
      Clock clock,
      @Nullable Sleeper sleeper) {
    this.leases = requireNonNull(leases, "leases");
    this.namespace = requireNonNull(namespace, "namespace");
    this.name = requireNonNull(name, "name");
    this.identity = requireNonNull(identity, "identity");
    this.timing = requireNonNull(timing, "timing");
    this.clock = requireNonNull(clock, "clock");
    if (identity.isBlank()) {
      throw new IllegalArgumentException(
          "the identity of a candidate must not be blank: " + Escapes.quote(identity));
    }
    this.sleeper = sleeper != null ? sleeper : this::awaitStop;
  }

  /**
   * Starts the election on a daemon thread named {@code capstan-leader-election-<name>}.
   *
   * @throws IllegalStateException when it was started or closed already
   */
  void start(Listener listener) {
    requireNonNull(listener, "listener");
    Thread t = new Thread(() -> run(listener), "capstan-leader-election-" + name);
    t.setDaemon(true);
    synchronized (this) {
      if (state != State.NEW) {
        throw new IllegalStateException(
            "the leader election of " + identity + " on Lease " + lease() + " is " + state);
      }
      state = State.RUNNING;
      thread = t;
    }
    t.start();
  }

  /** Whether this replica leads now. */
  boolean isLeader() {
    return leading;
  }

  /**
   * Stops the election: a leader calls {@link Listener#stoppedLeading} and then gives the Lease up,
   * so another replica can take over at once. Waits for the election thread to end (an API call in
   * flight first finishes or times out). Does nothing when already stopped.
   */
  @Override
  public void close() {
    stop(State.CLOSING);
  }

  /**
   * Stops the election thread as if the process were killed: no give-up and no {@link
   * Listener#stoppedLeading}; the Lease stays held until it expires. For tests of a take-over.
   */
  void halt() {
    stop(State.HALTING);
  }

  /**
   * One round of the election at the clock's time: a candidate tries to acquire the Lease, a leader
   * to renew it; errors are logged and end the round. The election thread calls it in a loop,
   * pausing as long as it returns; tests call it directly.
   *
   * @return the pause before the next round: the renew period after a renewal or an acquisition,
   *     else the retry period
   */
  Duration round(Listener listener) {
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
    try {
      return leading ? renew(now, listener) : acquire(now, listener);
    } catch (ClusterException e) {
      LOG.warn(
          "leader election of {}: {}; next try in {}",
          identity,
          oneLine(e),
          Durations.format(timing.retryPeriod()));
    } catch (RuntimeException e) {
      LOG.warn(
          "leader election of {} on Lease {} failed; next try in {}",
          identity,
          lease(),
          Durations.format(timing.retryPeriod()),
          e);
    }
    if (leading && !renewableUntil(now.plus(timing.retryPeriod()))) {
      lose("could not renew it before it expires", listener);
    }
    return timing.retryPeriod();
  }

  /**
   * Gives the Lease up when leading, after calling {@link Listener#stoppedLeading}, so that the
   * work it stops ends before another replica may start it. A give-up that fails is logged; the
   * Lease then expires on its own.
   */
  void resign(Listener listener) {
    V1Lease mine = written;
    if (!leading || mine == null) {
      return;
    }
    leading = false;
    written = null;
    notify(listener::stoppedLeading, "stoppedLeading");
    Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
    try {
      leases.replace(
          namespace, name, withRecord(mine, ElectionRecord.of(mine.getSpec()).releasedAt(now)));
      LOG.info("{} gave up the leader Lease {}", identity, lease());
    } catch (ClusterException e) {
      if (e.status() == 409 || e.status() == 404) {
        LOG.info("{} had lost the leader Lease {} already", identity, lease());
      } else {
        LOG.warn("leader election of {}: {}; the Lease expires on its own", identity, oneLine(e));
      }
    }
  }

  private Duration acquire(Instant now, Listener listener) {
    int seconds = timing.leaseSeconds();
    V1Lease current = leases.get(namespace, name);
    V1Lease taken;
    try {
      if (current == null) {
        V1Lease fresh =
            new V1Lease()
                .apiVersion("coordination.k8s.io/v1")
                .kind("Lease")
                .metadata(new V1ObjectMeta().name(name).namespace(namespace))
                .spec(ElectionRecord.created(identity, now, seconds).toSpec(null));
        taken = leases.create(namespace, fresh);
      } else {
        ElectionRecord held = ElectionRecord.of(current.getSpec());
        if (!held.heldBy(identity) && !held.takeableAt(now)) {
          return timing.retryPeriod();
        }
        taken =
            leases.replace(
                namespace, name, withRecord(current, held.acquiredBy(identity, now, seconds)));
        if (held.holder() != null && !held.heldBy(identity)) {
          LOG.info(
              "{} takes the leader Lease {} over from {}, whose lease expired at {}",
              identity,
              lease(),
              held.holder(),
              held.expiresAt());
        }
      }
    } catch (ClusterException e) {
      if (e.status() == 409 || e.status() == 404) {
        return timing.retryPeriod(); // another candidate wrote the Lease first
      }
      throw e;
    }
    written = taken;
    leading = true;
    LOG.info("{} leads on Lease {}", identity, lease());
    notify(listener::startedLeading, "startedLeading");
    return timing.renewPeriod();
  }

  private Duration renew(Instant now, Listener listener) {
    V1Lease mine = requireNonNull(written, "written");
    int seconds = timing.leaseSeconds();
    try {
      written =
          leases.replace(
              namespace,
              name,
              withRecord(mine, ElectionRecord.of(mine.getSpec()).renewedAt(now, seconds)));
      return timing.renewPeriod();
    } catch (ClusterException e) {
      if (e.status() != 409 && e.status() != 404) {
        throw e;
      }
    }
    V1Lease current = leases.get(namespace, name);
    if (current == null) {
      lose("the Lease was deleted", listener);
      return timing.retryPeriod();
    }
    ElectionRecord held = ElectionRecord.of(current.getSpec());
    if (!held.heldBy(identity)) {
      lose(
          held.holder() == null
              ? "it names no holder"
              : "it is held by " + Escapes.quote(held.holder()),
          listener);
      return timing.retryPeriod();
    }
    try {
      written = leases.replace(namespace, name, withRecord(current, held.renewedAt(now, seconds)));
      return timing.renewPeriod();
    } catch (ClusterException e) {
      if (e.status() != 409 && e.status() != 404) {
        throw e;
      }
      lose("another candidate wrote it", listener);
      return timing.retryPeriod();
    }
  }

  /** Whether the Lease as last written still counts at {@code time}. */
  private boolean renewableUntil(Instant time) {
    V1Lease mine = written;
    Instant expiry = mine == null ? null : ElectionRecord.of(mine.getSpec()).expiresAt();
    return expiry != null && time.isBefore(expiry);
  }

  private void lose(String why, Listener listener) {
    leading = false;
    written = null;
    LOG.info("{} stopped leading on Lease {}: {}", identity, lease(), why);
    notify(listener::stoppedLeading, "stoppedLeading");
  }

  private void run(Listener listener) {
    while (state == State.RUNNING) {
      Duration pause = round(listener);
      if (state != State.RUNNING) {
        break;
      }
      try {
        sleeper.sleep(pause);
      } catch (InterruptedException e) {
        state = State.CLOSING; // an interrupt of the election thread is a close
      }
    }
    if (state == State.HALTING) {
      leading = false;
      written = null;
    } else {
      resign(listener);
    }
  }

  private void stop(State how) {
    Thread t;
    synchronized (this) {
      if (state == State.CLOSING || state == State.HALTING) {
        return;
      }
      state = how;
      t = thread;
    }
    stopping.countDown();
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitStop(Duration pause) throws InterruptedException {
    // returns early when stopping; the loop then ends the election
    stopping.await(pause.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void notify(Runnable call, String what) {
    try {
      call.run();
    } catch (RuntimeException | StackOverflowError e) {
      // one Release too deep for the listener's work must not end the election, which then
      // would stop renewing while this replica still leads
      LOG.warn("the leader election listener of {} failed in {}", identity, what, e);
    }
  }

  private String lease() {
    return namespace + "/" + name;
  }

  /** {@code base} with a spec holding {@code record}, on {@code base}'s resourceVersion. */
  private static V1Lease withRecord(V1Lease base, ElectionRecord record) {
    return new V1Lease()
        .apiVersion("coordination.k8s.io/v1")
        .kind("Lease")
        .metadata(base.getMetadata())
        .spec(record.toSpec(base.getSpec()));
  }

  private static String oneLine(ClusterException e) {
    String message = e.getMessage();
    return Escapes.escape(message == null ? "HTTP " + e.status() : message);
  }
}
