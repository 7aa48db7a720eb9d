package dev.capstan.release;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.internal.DaemonThreads;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Holds the operation lease of one release operation: takes it, renews it in the background every
 * third of its duration, and gives it up. If a renewal fails the operation learns it at its next
 * {@link #checkHeld()} and stops before writing more.
 */
final class LeaseKeeper implements AutoCloseable {
  private final Store store;
  private final String namespace;
  private final String name;
  private final String holder;
  private final LeaseGrant grant;
  private final Consumer<ReleaseEvent> events;
  private final ScheduledExecutorService renewer;
  private volatile @Nullable RuntimeException lost;
  private boolean forget;

  private LeaseKeeper(
      Store store,
      String namespace,
      String name,
      String holder,
      LeaseGrant grant,
      Clock clock,
      Duration ttl,
      Consumer<ReleaseEvent> events) {
    this.store = store;
    this.namespace = namespace;
    this.name = name;
    this.holder = holder;
    this.grant = grant;
    this.events = events;
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("capstan-lease-" + namespace + "-" + name));
    long period = Math.max(1, ttl.toMillis() / 3);
    var unused =
        renewer.scheduleAtFixedRate(
            () -> {
              try {
                store.renewLease(namespace, name, holder, clock.instant(), ttl);
              } catch (RuntimeException e) {
                lost = e;
              }
            },
            period,
            period,
            TimeUnit.MILLISECONDS);
  }

  /**
   * Takes the lease.
   *
   * @throws ReleaseLockedException if another holder has it
   */
  static LeaseKeeper acquire(
      Store store,
      String namespace,
      String name,
      String holder,
      Clock clock,
      Duration ttl,
      Consumer<ReleaseEvent> events) {
    LeaseGrant grant = store.acquireLease(namespace, name, holder, clock.instant(), ttl);
    events.accept(
        new ReleaseEvent.LeaseAcquired(namespace + "/" + name, holder, grant.takenOver()));
    return new LeaseKeeper(store, namespace, name, holder, grant, clock, ttl, events);
  }

  LeaseGrant grant() {
    return grant;
  }

  /** Deletes the lease object when closing (after a purge). */
  void forgetOnClose() {
    forget = true;
  }

  /**
   * Throws if a background renewal failed: the lease may be someone else's now.
   *
   * @throws ReleaseException naming the renewal error
   */
  void checkHeld() {
    RuntimeException e = lost;
    if (e != null) {
      throw new ReleaseException(
          "lost the operation lease on " + namespace + "/" + name + ": " + e.getMessage(), e);
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
    T result;
    try {
      result = body.apply(this);
    } catch (RuntimeException e) {
      close();
      throw e;
    } catch (Error e) {
      abandon();
      throw e;
    }
    close();
    return result;
  }

  @Override
  public void close() {
    renewer.shutdownNow();
    try {
      store.releaseLease(namespace, name, holder, forget);
    } catch (RuntimeException e) {
      events.accept(
          new ReleaseEvent.Warning(
              namespace + "/" + name,
              "could not release the lease (it lapses at its expiry): " + e.getMessage()));
    }
  }
}
