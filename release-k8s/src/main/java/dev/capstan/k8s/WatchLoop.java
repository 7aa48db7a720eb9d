package dev.capstan.k8s;

import io.kubernetes.client.common.KubernetesObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one watch loop of this adapter's waits ({@link HealthWatch} for a release's objects, {@link
 * RolloutTracker} for a platform update's Deployments): after the wait's own LIST has found that
 * something is still pending, it runs that wait's {@link ResumableWatch}es (each resuming from a
 * resourceVersion, re-listing on 410 or a broken watch) on their threads, queues their updates as
 * the wait's events {@code E}, in the order each watch saw them, and hands them back in batches:
 * {@link #next} waits until a first event or a time, then takes every event already queued. What
 * counts as done, the timeouts and the error a wait reports stay the wait's; the loop adds no
 * request of its own.
 *
 * <p>Used as a resource: {@link #close} stops every watch, whether the wait ended, failed or was
 * interrupted.
 *
 * @param <E> the wait's event: an update of one of its watches, tagged with what it is about
 */
final class WatchLoop<E> implements AutoCloseable {
  private final BlockingQueue<E> events = new LinkedBlockingQueue<>();
  private final List<ResumableWatch<?>> watches = new ArrayList<>();
  private final LongSupplier nanos;
  private final ResumableWatch.Pause pause;
  private final Function<E, ResumableWatch.Update<?>> updateOf;
  private final Supplier<RuntimeException> interrupted;
  private boolean started;

  /**
   * A loop on a clock.
   *
   * @param nanos the clock the deadlines are on ({@link System#nanoTime} but in tests)
   * @param pause the watches' pause before reopening
   * @param updateOf the update an event carries
   * @param interrupted the wait's failure when its thread is interrupted while it waits
   */
  WatchLoop(
      LongSupplier nanos,
      ResumableWatch.Pause pause,
      Function<E, ResumableWatch.Update<?>> updateOf,
      Supplier<RuntimeException> interrupted) {
    this.nanos = nanos;
    this.pause = pause;
    this.updateOf = updateOf;
    this.interrupted = interrupted;
  }

  /**
   * Adds a watch of {@code source} from {@code from} until {@code deadline}, its updates queued as
   * {@code event} makes them (on the watch's thread). It runs from {@link #start}, or at once when
   * the loop has started.
   */
  <T extends KubernetesObject> void watch(
      String name,
      ResumableWatch.Source<T> source,
      @Nullable String from,
      long deadline,
      Function<ResumableWatch.Update<T>, E> event) {
    ResumableWatch<T> watch =
        new ResumableWatch<>(
            name, source, from, deadline, update -> events.add(event.apply(update)), nanos, pause);
    watches.add(watch);
    if (started) {
      watch.start();
    }
  }

  /** Starts the watches added so far; any added later starts at once. */
  void start() {
    started = true;
    watches.forEach(ResumableWatch::start);
  }

  /**
   * The next events: waits until one is queued or the clock reaches {@code until} (when it already
   * has, takes one only if it is queued), then takes every event already queued, in order.
   *
   * @return the batch, empty when nothing came by {@code until}
   * @throws RuntimeException the wait's {@code interrupted} failure, the thread's interrupt flag
   *     set again, when interrupted while waiting
   */
  List<E> next(long until) {
    long left = until - nanos.getAsLong();
    E first;
    try {
      first = left <= 0 ? events.poll() : events.poll(left, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted.get();
    }
    if (first == null) {
      return List.of();
    }
    List<E> batch = new ArrayList<>();
    batch.add(first);
    events.drainTo(batch);
    return batch;
  }

  /**
   * Throws the failure of a watch that gave up ({@link ResumableWatch.Update.Failed}) when {@code
   * event} carries it; the wait applies every other event.
   */
  void check(E event) {
    if (updateOf.apply(event) instanceof ResumableWatch.Update.Failed<?> f) {
      throw f.failure();
    }
  }

  /** Stops every watch. */
  @Override
  public void close() {
    watches.forEach(ResumableWatch::stop);
  }
}
