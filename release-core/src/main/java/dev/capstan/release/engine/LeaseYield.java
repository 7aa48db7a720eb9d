package dev.capstan.release.engine;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.port.Store;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Both sides of a request to yield a release's operation lease (ARCHITECTURE.md, "Superseding a
 * wait"): an operation waiting for the lease asks its holder once ({@link #ask}) and withdraws the
 * request once it has the lease ({@link #withdraw}); a cast holding the lease reads whether it was
 * asked ({@link #asked()}) where it asks whether a newer revision supersedes it, and then stops as
 * superseded. Only where the store {@linkplain Store#carriesYieldRequests() carries the requests}.
 * The holder's reads run on its lease's renewer ({@link LeaseKeeper#yieldRequests}): one background
 * thread per lease, stopped with it.
 */
final class LeaseYield implements AutoCloseable {
  /** How often at most a holder reads the store for a request: 1 s. */
  static final Duration POLL = Duration.ofSeconds(1);

  private final Store store;
  private final String namespace;
  private final String name;
  private final String holder;
  private final Executor reader;
  private final AtomicBoolean polling = new AtomicBoolean();
  private volatile long polledAt;
  private volatile boolean closed;
  private volatile @Nullable String askedBy;

  private LeaseYield(Store store, String namespace, String name, String holder, Executor reader) {
    this.store = store;
    this.namespace = namespace;
    this.name = name;
    this.holder = holder;
    this.reader = reader;
    this.polledAt = System.nanoTime(); // a cast done within POLL reads nothing
  }

  /**
   * What the holder {@code holder} of the lease on {@code namespace/name} reads, on {@code reader}
   * (a single background thread the lease's keeper owns).
   */
  static LeaseYield heldBy(
      Store store, String namespace, String name, String holder, Executor reader) {
    return new LeaseYield(store, namespace, name, holder, reader);
  }

  /**
   * Asks {@code holder} to yield the lease on {@code namespace/name} to {@code requester}, telling
   * it ({@link ReleaseEvent.AskedToYield}); a failure to ask is a warning, and the wait goes on.
   */
  static void ask(
      Store store,
      String namespace,
      String name,
      String holder,
      String requester,
      Instant at,
      Consumer<ReleaseEvent> events) {
    String release = namespace + "/" + name;
    try {
      store.requestYield(namespace, name, holder, requester, at);
      events.accept(new ReleaseEvent.AskedToYield(release, holder));
    } catch (RuntimeException e) {
      events.accept(
          new ReleaseEvent.Warning(
              release,
              "could not ask " + holder + " to yield the lease (waiting on): " + e.getMessage()));
    }
  }

  /** Withdraws {@code requester}'s request on {@code namespace/name}; a failure is a warning. */
  static void withdraw(
      Store store, String namespace, String name, String requester, Consumer<ReleaseEvent> events) {
    try {
      store.withdrawYieldRequest(namespace, name, requester);
    } catch (RuntimeException e) {
      events.accept(
          new ReleaseEvent.Warning(
              namespace + "/" + name,
              "could not withdraw the request to yield the lease (it names a holder that is gone): "
                  + e.getMessage()));
    }
  }

  /**
   * Whether an operation waiting for the lease asked this holder to yield it. Cheap and
   * non-blocking: the store is read in the background, at most every {@link #POLL}, from the first
   * call on; a failed read counts as no request. Always {@code false} where the store carries no
   * requests.
   */
  boolean asked() {
    if (askedBy != null) {
      return true;
    }
    if (closed || !store.carriesYieldRequests()) {
      return false;
    }
    long now = System.nanoTime();
    if (now - polledAt >= POLL.toNanos() && polling.compareAndSet(false, true)) {
      polledAt = now;
      try {
        reader.execute(this::read);
      } catch (RejectedExecutionException e) {
        polling.set(false); // the lease is being given up: nothing left to yield
      }
    }
    return false;
  }

  /** Who asked, once {@link #asked()} answered {@code true}. */
  @Nullable String askedBy() {
    return askedBy;
  }

  private void read() {
    if (closed) {
      polling.set(false);
      return;
    }
    try {
      askedBy = store.yieldRequested(namespace, name, holder).orElse(null);
    } catch (RuntimeException e) {
      // unreadable now: no request seen; the next poll reads again
    } finally {
      polling.set(false);
    }
  }

  /** Stops the background reads: none starts after this; one in flight ends on its own. */
  @Override
  public void close() {
    closed = true;
  }
}
