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
 * wait"): an operation waiting for the lease asks each holder it finds once and withdraws the
 * request when its wait ends ({@link Request}); a cast holding the lease reads whether it was asked
 * ({@link #asked()}) where it asks whether a newer revision supersedes it, and then stops as
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
   * The request {@code requester}, waiting for the lease on {@code namespace/name}, makes of the
   * holders it finds: each holder asked once ({@link Request#ask}), the request withdrawn when the
   * wait ends ({@link Request#close}), granted, timed out or interrupted.
   */
  static Request request(
      Store store, String namespace, String name, String requester, Consumer<ReleaseEvent> events) {
    return new Request(store, namespace, name, requester, events);
  }

  /**
   * A waiter's side of the request: which holder it asked last, and the withdrawal at its close
   * when it asked any. Not thread-safe: the waiting thread owns it.
   */
  static final class Request implements AutoCloseable {
    private final Store store;
    private final String namespace;
    private final String name;
    private final String requester;
    private final Consumer<ReleaseEvent> events;
    private @Nullable String asked;

    private Request(
        Store store,
        String namespace,
        String name,
        String requester,
        Consumer<ReleaseEvent> events) {
      this.store = store;
      this.namespace = namespace;
      this.name = name;
      this.requester = requester;
      this.events = events;
    }

    /**
     * Asks {@code holder} to yield the lease, at {@code at}, unless it was the last holder asked (a
     * holder that took the lease after the asked one yielded is asked too), telling it ({@link
     * ReleaseEvent.AskedToYield}); a failure to ask is a warning, and the wait goes on.
     */
    void ask(String holder, Instant at) {
      if (holder.equals(asked)) {
        return;
      }
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
      asked = holder;
    }

    /** Withdraws the request if any holder was asked; a failure is a warning. */
    @Override
    public void close() {
      if (asked == null) {
        return;
      }
      try {
        store.withdrawYieldRequest(namespace, name, requester);
      } catch (RuntimeException e) {
        events.accept(
            new ReleaseEvent.Warning(
                namespace + "/" + name,
                "could not withdraw the request to yield the lease (it names a holder that is"
                    + " gone): "
                    + e.getMessage()));
      }
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
