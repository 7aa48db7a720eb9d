package dev.capstan.release;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.common.Sleeper;
import dev.capstan.release.engine.EngineContext;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Configures a {@link ReleaseController}: {@link ReleaseController#builder}, then the settings that
 * differ from the defaults, then {@link #build}.
 */
public final class ReleaseControllerBuilder {
  final Orchestrator orchestrator;
  final Store store;
  Clock clock = Clock.systemUTC();
  int maxHistory = 10;
  Duration leaseDuration = ReleaseController.DEFAULT_LEASE_DURATION;
  @Nullable Duration leaseRenewal;
  Duration leaseWait = Duration.ZERO;
  boolean askHoldersToYield;
  Sleeper sleeper = Sleeper.system();
  dev.capstan.common.Backoff leasePoll = EngineContext.LEASE_POLL;
  final List<ReleaseListener> listeners = new ArrayList<>();
  int parallelism = 4;
  @Nullable Integer deleteParallelism;
  Supplier<String> holder = ReleaseControllerBuilder::processHolder;
  Supplier<String> ids = () -> UUID.randomUUID().toString();

  ReleaseControllerBuilder(Orchestrator orchestrator, Store store) {
    this.orchestrator = requireNonNull(orchestrator, "orchestrator");
    this.store = requireNonNull(store, "store");
  }

  /** The clock for timestamps and lease expiry (default: the system UTC clock). */
  public ReleaseControllerBuilder clock(Clock clock) {
    this.clock = requireNonNull(clock, "clock");
    return this;
  }

  /** How many revisions to keep per release, at least 1 (default 10). */
  public ReleaseControllerBuilder maxHistory(int maxHistory) {
    this.maxHistory = atLeastOne(maxHistory, "maxHistory");
    return this;
  }

  /**
   * How long the operation lease lasts without renewal, at least one second (default {@value
   * ReleaseController#DEFAULT_LEASE_SECONDS} seconds). A holder that dies blocks others until it
   * lapses; a holder whose renewals fail for that long stops before its next write.
   */
  public ReleaseControllerBuilder leaseDuration(Duration leaseDuration) {
    requireNonNull(leaseDuration, "leaseDuration");
    if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          "leaseDuration must be at least 1 second: " + Durations.format(leaseDuration));
    }
    this.leaseDuration = leaseDuration;
    return this;
  }

  /**
   * How often the lease is renewed while an operation runs, positive and at most half the lease
   * duration (default: a third of it, 5 seconds for the default 15-second lease).
   */
  public ReleaseControllerBuilder leaseRenewal(Duration every) {
    requireNonNull(every, "leaseRenewal");
    if (every.isNegative() || every.isZero()) {
      throw new IllegalArgumentException(
          "leaseRenewal must be positive: " + Durations.format(every));
    }
    this.leaseRenewal = every;
    return this;
  }

  /**
   * How long an operation queues behind another live holder of the lease, polling with backoff (200
   * ms doubling to 2 s), before it gives up with {@link ReleaseLockedException}; zero (the default)
   * gives up at once.
   */
  public ReleaseControllerBuilder waitForLease(Duration wait) {
    requireNonNull(wait, "waitForLease");
    if (wait.isNegative()) {
      throw new IllegalArgumentException(
          "waitForLease must not be negative: " + Durations.format(wait));
    }
    this.leaseWait = wait;
    return this;
  }

  /**
   * Whether an operation that finds the release's lease held, and waits for it ({@link
   * #waitForLease}), asks the cast holding it to yield, as {@code capstan release cast --supersede}
   * does (default: {@code false}, it waits its turn). The holder reads the request at its next
   * check (at least every second while it waits for health, and before each wave's writes), stops
   * there with nothing more written, records its revision {@code FAILED} as superseded and gives
   * the lease up; this operation then takes it. Only where the store {@linkplain
   * dev.capstan.release.port.Store#carriesYieldRequests() carries such requests} (the in-memory and
   * Kubernetes stores): elsewhere the operation waits as without it. Every cast of any controller
   * reads requests while it holds a lease; only the asking is chosen here.
   */
  public ReleaseControllerBuilder askHoldersToYield(boolean ask) {
    this.askHoldersToYield = ask;
    return this;
  }

  /** Pauses between lease polls (default: {@link Sleeper#system()}; tests pass a fake). */
  public ReleaseControllerBuilder sleeper(Sleeper sleeper) {
    this.sleeper = requireNonNull(sleeper, "sleeper");
    return this;
  }

  /** How the lease is polled while waiting (tests pass one with a seeded jitter). */
  ReleaseControllerBuilder leasePoll(dev.capstan.common.Backoff poll) {
    this.leasePoll = requireNonNull(poll, "leasePoll");
    return this;
  }

  /**
   * Adds a listener of progress events (default: none; the controller logs every event through
   * SLF4J itself). Each listener added receives every event, in the order they were added, and a
   * listener that throws is logged and does not keep the others from the event.
   */
  public ReleaseControllerBuilder listener(ReleaseListener listener) {
    this.listeners.add(requireNonNull(listener, "listener"));
    return this;
  }

  /** How many objects of one kind to apply at once, at least 1 (default 4). */
  public ReleaseControllerBuilder parallelism(int parallelism) {
    this.parallelism = atLeastOne(parallelism, "parallelism");
    return this;
  }

  /**
   * How many objects of one rank to delete (or un-stamp) at once in an uninstall and a cast's
   * prune, at least 1. Default: {@value ReleaseController#DEFAULT_DELETE_PARALLELISM}, or the write
   * {@linkplain #parallelism parallelism} when that is 1 (one request at a time) or higher. Ranks
   * still go one after the other in reverse apply order, each delete still carries the observed uid
   * and resourceVersion: only the objects of one rank go out together.
   */
  public ReleaseControllerBuilder deleteParallelism(int deleteParallelism) {
    this.deleteParallelism = atLeastOne(deleteParallelism, "deleteParallelism");
    return this;
  }

  /**
   * The lease holder name shown to others (default: {@code pid <pid>/<8 random hex>}, the random
   * part keeping two controllers of one process apart).
   */
  public ReleaseControllerBuilder holder(String holder) {
    String name = dev.capstan.release.internal.Names.requireText(holder, "holder");
    this.holder = () -> name;
    return this;
  }

  /**
   * Where the lease holder name shown to others comes from, asked once by {@link #build()}
   * (default: {@code pid <pid>/<8 random hex>}, the random part keeping two controllers of one
   * process apart; release-k8s's {@code LeaseHolders.onThisHost()} names the machine too).
   */
  public ReleaseControllerBuilder holder(Supplier<String> holder) {
    this.holder = requireNonNull(holder, "holder");
    return this;
  }

  /** Generates release ids for first installs (default: random UUIDs). */
  public ReleaseControllerBuilder ids(Supplier<String> ids) {
    this.ids = requireNonNull(ids, "ids");
    return this;
  }

  /** Builds the controller. */
  public ReleaseController build() {
    return new ReleaseController(
        new EngineContext(
            orchestrator,
            store,
            clock,
            maxHistory,
            EngineContext.LeaseSettings.of(
                holder,
                leaseDuration,
                leaseRenewal,
                leaseWait,
                leasePoll,
                sleeper,
                askHoldersToYield),
            listeners,
            parallelism,
            deleteParallelism != null
                ? deleteParallelism
                : parallelism == 1
                    ? 1
                    : Math.max(parallelism, ReleaseController.DEFAULT_DELETE_PARALLELISM),
            ids));
  }

  /**
   * The default lease holder, a new one each call: {@code pid <pid>/<8 random hex>}, the random
   * part keeping two controllers of one process apart. From the process alone: release-core reads
   * no file and no environment; a host that wants its machine named passes a holder (release-k8s's
   * {@code LeaseHolders.onThisHost()}).
   */
  public static String processHolder() {
    return "pid "
        + ProcessHandle.current().pid()
        + "/"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  private static int atLeastOne(int value, String name) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1: " + value);
    }
    return value;
  }
}
