package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's workers and their queue: each worker takes one Release at a time, reconciles it
 * while this replica leads, and schedules what comes next; every reconcile is told to the observer.
 * A reconcile that throws (its Release's status could not be written) comes back after the queue's
 * in-memory backoff and is logged once until it changes. So does one that overflows the stack (a
 * value of one Release too deep for a check that recurses), after the Release is reported {@code
 * Stalled}: one Release's value never ends a worker, nor the election thread's {@link #lead}.
 */
final class ReconcileLoop {
  private static final Logger LOG = LoggerFactory.getLogger(ReconcileLoop.class);

  /** Backoff of a Release whose reconcile threw: 1 s doubling up to 5 min, in this process only. */
  static final Duration BASE_BACKOFF = Duration.ofSeconds(1);

  static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  private final ReleaseReconciler reconciler;
  private final ReleaseObjects objects;
  private final ControllerListener listener;
  private final ControllerObserver observer;
  private final Clock clock;
  private final WorkQueue<ReleaseKey> queue;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean leading = new AtomicBoolean();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final AtomicInteger reconciles = new AtomicInteger();

  /** The last failure logged of each Release whose reconcile threw: logged once, not per retry. */
  private final Map<ReleaseKey, String> thrown = new ConcurrentHashMap<>();

  ReconcileLoop(
      ReleaseReconciler reconciler,
      ReleaseObjects objects,
      ControllerListener listener,
      ControllerObserver observer,
      Clock clock,
      int workers,
      int workersPerNamespace) {
    this.reconciler = requireNonNull(reconciler, "reconciler");
    this.objects = requireNonNull(objects, "objects");
    this.listener = requireNonNull(listener, "listener");
    this.observer = requireNonNull(observer, "observer");
    this.clock = requireNonNull(clock, "clock");
    this.queue =
        WorkQueue.create(BASE_BACKOFF, MAX_BACKOFF, ReleaseKey::namespace, workersPerNamespace);
    for (int i = 0; i < workers; i++) {
      Thread t = new Thread(this::work, "capstan-controller-worker-" + i);
      t.setDaemon(true);
      threads.add(t);
    }
  }

  /** Puts a Release on the queue now. */
  void add(ReleaseKey key) {
    queue.add(key);
  }

  /** Starts the workers; they reconcile once this replica leads. */
  void start() {
    threads.forEach(Thread::start);
  }

  /**
   * Starts reconciling every Release: at once, but a Release that is stalled for its generation
   * (and asks for no manual reconcile) after the pause it would have waited had this replica not
   * just begun ({@link RetrySchedule}).
   */
  void lead() {
    leading.set(true);
    Instant now = clock.instant();
    for (ReleaseResource r : objects.list()) {
      Duration pause;
      try {
        pause = firstPause(r, now);
      } catch (RuntimeException | StackOverflowError e) {
        pause = Duration.ZERO; // a worker reconciles it and reports what is wrong with it
      }
      queue.addAfter(r.key(), pause);
    }
  }

  /** How long a Release waits when this replica begins to lead ({@link #lead}). */
  private static Duration firstPause(ReleaseResource r, Instant now) {
    if (RetrySchedule.stalledSince(r) == null || r.reconcileRequested() || r.deleting()) {
      return Duration.ZERO;
    }
    return RetrySchedule.pause(r, interval(r), now);
  }

  /** Stops reconciling (another replica leads); the queue is kept. */
  void follow() {
    leading.set(false);
  }

  boolean leading() {
    return leading.get();
  }

  int reconciles() {
    return reconciles.get();
  }

  /**
   * Stops: no new reconcile starts, the one under way on each worker finishes, waiting up to {@code
   * wait} in all.
   */
  void stop(Duration wait) {
    stopped.set(true);
    queue.shutDown();
    long deadline = System.nanoTime() + wait.toNanos();
    for (Thread t : threads) {
      try {
        t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    leading.set(false);
  }

  /** The interval a Release's spec gives (the default when the spec is not valid). */
  private static Duration interval(ReleaseResource release) {
    return ReleaseRequest.intervalOf(release);
  }

  /** One worker: takes a Release, reconciles it, schedules what comes next. */
  private void work() {
    while (!stopped.get()) {
      ReleaseKey key;
      try {
        if (!leading.get()) {
          Thread.sleep(100);
          continue;
        }
        key = queue.take(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        return;
      }
      if (key == null) {
        continue;
      }
      long began = System.nanoTime();
      try {
        if (!leading.get()) {
          queue.add(key); // after done(): kept for the next leader's turn
          continue;
        }
        ReleaseReconciler.Next next = reconciler.reconcile(key);
        reconciles.incrementAndGet();
        thrown.remove(key);
        queue.forget(key);
        Duration after = next.after();
        if (after != null) {
          queue.addAfter(key, after);
        }
        observe(key, began, null);
      } catch (StackOverflowError e) {
        // not Error at large: an OutOfMemoryError still ends the JVM (-XX:+ExitOnOutOfMemoryError)
        tooComplex(key, began);
      } catch (RuntimeException e) {
        failed(key, began, String.valueOf(e.getMessage()));
      } finally {
        queue.done(key);
      }
    }
  }

  /**
   * A reconcile that overflowed the stack, now unwound: the Release is reported Stalled ({@link
   * ReleaseReconciler#reportTooComplex}) and comes back after the backoff, as a reconcile that
   * threw does.
   */
  private void tooComplex(ReleaseKey key, long began) {
    try {
      reconciler.reportTooComplex(key);
    } catch (RuntimeException e) {
      failed(key, began, String.valueOf(e.getMessage()));
      return;
    } catch (StackOverflowError e) {
      failed(key, began, ReleaseReconciler.TOO_COMPLEX_MESSAGE);
      return;
    }
    thrown.remove(key);
    queue.addRateLimited(key);
    observe(key, began, null);
  }

  /** A reconcile that threw: logged once until it changes, and back after the backoff. */
  private void failed(ReleaseKey key, long began, String message) {
    String why = StatusReport.oneLine(message);
    if (!why.equals(thrown.put(key, why))) {
      listener.outcome(key, "failed: " + why);
    }
    queue.addRateLimited(key);
    observe(key, began, ControllerObserver.ERROR);
  }

  private void observe(ReleaseKey key, long began, @Nullable String error) {
    Duration took = Duration.ofNanos(System.nanoTime() - began);
    ReleaseResource r = reconciler.current(key);
    Map<?, ?> ready = r == null ? null : r.condition("Ready");
    String status = ready == null ? null : String.valueOf(ready.get("status"));
    String reason =
        error != null
            ? error
            : ready == null || ready.get("reason") == null
                ? "None"
                : String.valueOf(ready.get("reason"));
    try {
      observer.reconciled(new ControllerObserver.Reconcile(key, took, status, reason));
    } catch (RuntimeException e) {
      LOG.warn(
          "the observer {} failed: {}",
          observer.getClass().getName(),
          String.valueOf(e.getMessage()));
    }
  }

  /** The state an observer reads: the queue, and the Releases by condition. */
  ControllerObserver.State state() {
    return new ControllerObserver.State() {
      @Override
      public int queueDepth() {
        return queue.size();
      }

      @Override
      public List<ControllerObserver.ConditionCount> releasesByCondition() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String s : List.of("True", "False", "Unknown")) {
          counts.put("Ready=" + s, 0);
        }
        for (String t : List.of("Stalled", "Reconciling", "Suspended")) {
          counts.put(t + "=True", 0);
        }
        for (ReleaseResource r : objects.list()) {
          ReleaseResource current = reconciler.current(r.key());
          for (String type : List.of("Ready", "Stalled", "Reconciling", "Suspended")) {
            Map<?, ?> c = (current == null ? r : current).condition(type);
            if (c != null) {
              counts.computeIfPresent(type + "=" + c.get("status"), (k, n) -> n + 1);
            }
          }
        }
        List<ControllerObserver.ConditionCount> out = new ArrayList<>();
        counts.forEach(
            (k, n) -> {
              int eq = k.indexOf('=');
              out.add(
                  new ControllerObserver.ConditionCount(
                      k.substring(0, eq), k.substring(eq + 1), n));
            });
        return out;
      }
    };
  }
}
