package dev.capstan.release.engine;

import dev.capstan.release.internal.DaemonThreads;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The engine's worker threads: one pool for the process, its threads made on demand and kept a
 * minute once idle, so that the ranks of a cast, its dry runs and its observations, and the
 * operations a daemon or a controller runs one after another, take threads already started rather
 * than start (and end) a pool of their own each time. Threads are daemons: they never keep a host
 * application's JVM alive.
 */
final class Workers {
  private static final String IDLE_NAME = "capstan-worker";
  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(DaemonThreads.named(IDLE_NAME));

  private Workers() {}

  /** The pool itself, for tasks that end on their own (observations). */
  static ExecutorService pool() {
    return POOL;
  }

  /**
   * Starts {@code count} runs of {@code body} at once, each on a worker named {@code name} and with
   * the calling thread's MDC (the operation's keys and the host's own) while it runs. Every run
   * starts, even one whose thread is taken after the others were asked to stop: {@code body} is
   * expected to look at its own stop flag first.
   */
  static Crew start(int count, String name, Runnable body) {
    Crew crew = new Crew(count, MDC.getCopyOfContextMap());
    for (int i = 0; i < count; i++) {
      POOL.execute(() -> crew.run(name, body));
    }
    return crew;
  }

  /** The runs of one {@link #start}: waited for together, interrupted together. */
  static final class Crew {
    private final CountDownLatch ended;
    private final @Nullable Map<String, String> mdc;
    private final Set<Thread> running = new HashSet<>();

    private Crew(int count, @Nullable Map<String, String> mdc) {
      this.ended = new CountDownLatch(count);
      this.mdc = mdc;
    }

    private void run(String name, Runnable body) {
      Thread me = Thread.currentThread();
      me.setName(name);
      if (mdc == null) {
        MDC.clear();
      } else {
        MDC.setContextMap(mdc);
      }
      synchronized (running) {
        running.add(me);
      }
      try {
        body.run();
      } finally {
        synchronized (running) {
          running.remove(me);
        }
        Thread.interrupted(); // an interrupt meant for this run does not reach the thread's next
        MDC.clear();
        me.setName(IDLE_NAME);
        ended.countDown();
      }
    }

    /**
     * Waits until every run has ended; what they wrote before ending is visible to the caller.
     *
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    void awaitEnd() throws InterruptedException {
      ended.await();
    }

    /** Interrupts the runs still running, and returns at once. */
    void interrupt() {
      synchronized (running) {
        running.forEach(Thread::interrupt);
      }
    }

    /**
     * Interrupts the runs still running, then waits until every run has ended, through interrupts.
     */
    void interruptAndAwaitEnd() {
      interrupt();
      boolean interrupted = false;
      while (true) {
        try {
          ended.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
