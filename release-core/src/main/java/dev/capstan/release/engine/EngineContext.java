package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Backoff;
import dev.capstan.common.ClusterException;
import dev.capstan.common.Durations;
import dev.capstan.common.Sleeper;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.internal.Names;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What every operation of the engine shares, as the controller's builder set it: the ports, the
 * clock, the lease terms, the listeners, the parallelism and the id source; and the operation
 * running on each thread, whose listeners receive the events it sends. Immutable.
 */
public final class EngineContext {
  /** How the lease is polled while waiting, unless the builder says otherwise. */
  public static final Backoff LEASE_POLL = LeaseKeeper.POLL;

  /** The operation running on this thread, whose listeners receive the events it sends. */
  private static final ThreadLocal<OperationScope> CURRENT = new ThreadLocal<>();

  final Ports ports;
  final Store store;
  final Clock clock;
  final int maxHistory;
  final int parallelism;

  /**
   * How many deletes (or un-stamps) of one rank go out at once (default {@code
   * ReleaseController.DEFAULT_DELETE_PARALLELISM}, 64). Higher than the write parallelism: a delete
   * carries no body, and the API server spends no admission, defaulting or field management on it,
   * but it does wait on its own work (a Service's delete, ~70 ms on kube-apiserver 1.36, releases
   * its IP and ports), so small groups of deletes leave an API server with CPU to spare waiting;
   * Helm sends a kind's deletes all at once. 64 keeps a rank of hundreds of objects within a few
   * round trips and far from an API server's limits (250 HTTP/2 streams per connection; API
   * priority and fairness queues what exceeds a client's share). Client-java's requests are
   * synchronous calls, which OkHttp's dispatcher limits (64, 5 per host) do not bound, and it has
   * no client-side rate limiter: the width reaches the server. Where the server's CPU is the limit,
   * a wider delete only queues longer (docs/benchmarks.md, "Side by side with Helm and kubectl").
   */
  final int deleteParallelism;

  final Supplier<String> ids;
  private final LeaseKeeper.Terms leaseTerms;
  private final List<ReleaseListener> listeners;

  /**
   * The context of one controller; {@code listeners} are the host's, after which the engine's own
   * SLF4J log comes first.
   */
  public EngineContext(
      Orchestrator orchestrator,
      Store store,
      Clock clock,
      int maxHistory,
      LeaseSettings lease,
      List<ReleaseListener> listeners,
      int parallelism,
      int deleteParallelism,
      Supplier<String> ids) {
    this.ports = new Ports(orchestrator, store);
    this.store = store;
    this.clock = requireNonNull(clock, "clock");
    this.maxHistory = maxHistory;
    this.leaseTerms =
        new LeaseKeeper.Terms(
            store,
            lease.holder(),
            clock,
            lease.duration(),
            lease.renewEvery(),
            lease.maxWait(),
            lease.poll(),
            lease.sleeper(),
            lease.askHolderToYield());
    List<ReleaseListener> all = new ArrayList<>();
    all.add(EventLog.INSTANCE);
    all.addAll(listeners);
    this.listeners = List.copyOf(all);
    this.parallelism = parallelism;
    this.deleteParallelism = deleteParallelism;
    this.ids = requireNonNull(ids, "ids");
  }

  /**
   * How the operation lease is taken, kept and waited for.
   *
   * @param askHolderToYield whether an operation waiting for the lease asks its holder to yield it
   */
  public record LeaseSettings(
      String holder,
      Duration duration,
      Duration renewEvery,
      Duration maxWait,
      Backoff poll,
      Sleeper sleeper,
      boolean askHolderToYield) {
    /**
     * The settings of a builder: {@code renewEvery} defaults to a third of the duration and may be
     * at most half of it, so one missed renewal does not lose the lease; the holder is asked once.
     *
     * @throws IllegalArgumentException if {@code renewEvery} is more than half the duration, or the
     *     holder is blank
     */
    public static LeaseSettings of(
        Supplier<String> holder,
        Duration duration,
        @Nullable Duration renewEvery,
        Duration maxWait,
        Backoff poll,
        Sleeper sleeper,
        boolean askHolderToYield) {
      Duration renewal = renewEvery != null ? renewEvery : duration.dividedBy(3);
      if (renewal.compareTo(duration.dividedBy(2)) > 0) {
        throw new IllegalArgumentException(
            "leaseRenewal must be at most half the lease duration ("
                + Durations.format(duration)
                + "), so one missed renewal does not lose the lease: "
                + Durations.format(renewal));
      }
      String name = Names.requireText(holder.get(), "holder");
      return new LeaseSettings(name, duration, renewal, maxWait, poll, sleeper, askHolderToYield);
    }

    public LeaseSettings {
      requireNonNull(holder, "holder");
      requireNonNull(duration, "duration");
      requireNonNull(renewEvery, "renewEvery");
      requireNonNull(maxWait, "maxWait");
      requireNonNull(poll, "poll");
      requireNonNull(sleeper, "sleeper");
    }
  }

  /** Takes the operation lease of a release for the operation running on this thread. */
  LeaseKeeper acquireLease(String namespace, String name, @Nullable LeaseIntent intent) {
    return LeaseWait.acquire(leaseTerms, namespace, name, intent, events());
  }

  /**
   * The lease a cast of {@code request} plans under, or {@code null} when it plans first: once it
   * {@code looked} (planned first), its lease taken ({@link #acquireCastLease}); before that,
   * {@code null} for a request that plans first ({@link CastRequest#plansFirst}) or whose lease
   * cannot be taken because its namespace does not exist (404: the plan then reports the missing
   * namespace), else its lease taken.
   */
  @Nullable LeaseKeeper castLease(CastRequest request, boolean looked) {
    if (!looked && request.plansFirst()) {
      return null;
    }
    try {
      return acquireCastLease(request.spec());
    } catch (ClusterException e) {
      if (looked || e.status() != 404) {
        throw e;
      }
      return null;
    }
  }

  /** Takes the operation lease for a cast of {@code spec}, naming what it may write. */
  LeaseKeeper acquireCastLease(ReleaseSpec spec) {
    return acquireLease(
        spec.namespace(),
        spec.name(),
        store.keepsLeaseIntents() ? LeaseIntent.cast(ids.get(), spec) : null);
  }

  /**
   * Runs {@code body} as one operation: {@code OperationStarted} first, then its events, then one
   * {@code Finished} built from what it returned or threw (ARCHITECTURE.md, "Observability").
   */
  <T> T operation(Operation operation, String release, Supplier<T> body) {
    return within(begin(release, operation), body, true);
  }

  /** Starts an operation whose body may run on more than one thread ({@link #within}). */
  OperationScope begin(String release, Operation operation) {
    return OperationScope.begin(listeners, release, operation);
  }

  /**
   * Runs {@code body} with {@code scope} as this thread's operation, and its keys in the thread's
   * MDC; finishes the operation when {@code body} throws, or with {@code finish} when it returns.
   */
  <T> T within(OperationScope scope, Supplier<T> body, boolean finish) {
    OperationScope outer = CURRENT.get();
    CURRENT.set(scope);
    LogContext mdc = scope.logContext();
    try {
      T result = body.get();
      if (finish) {
        scope.succeeded(result);
      }
      return result;
    } catch (RuntimeException | Error e) {
      scope.failed(e);
      throw e;
    } finally {
      mdc.close();
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /** Sends an event of this thread's operation to its listeners. */
  void emit(ReleaseEvent event) {
    OperationScope scope = CURRENT.get();
    if (scope == null) {
      OperationScope.deliver(listeners, event);
    } else {
      scope.emit(event);
    }
  }

  /** Where this thread's operation sends its events from other threads (pools, lease renewals). */
  Consumer<ReleaseEvent> events() {
    OperationScope scope = CURRENT.get();
    return scope == null ? this::emit : scope::emit;
  }
}
