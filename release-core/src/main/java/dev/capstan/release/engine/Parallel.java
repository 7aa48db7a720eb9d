package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.internal.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Runs one write per item, at most {@code parallelism} at once: the independent objects of one
 * rank. After a failure no further item starts; the ones running finish, and the first failure in
 * item order is thrown.
 *
 * <p>An interrupt of the calling thread (the operation's) stops the operation: no further item
 * starts (the lease keeper's {@link LeaseKeeper#checkHeld check} before each write fails from now
 * on), the writing threads are interrupted in turn (a retry's pause, a listener's wait end), the
 * call returns once they have all ended, and it throws the keeper's failure with the calling
 * thread's interrupt status set again. A write already sent when the interrupt came may or may not
 * have reached its target; the operation records it as attempted.
 */
final class Parallel {
  private Parallel() {}

  static <T> void forEach(
      List<T> items, int parallelism, String threadName, LeaseKeeper lease, Consumer<T> write) {
    if (parallelism == 1 || items.size() <= 1) {
      items.forEach(write); // on this thread: its own check sees an interrupt
      return;
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(parallelism, items.size()), DaemonThreads.named(threadName));
    AtomicBoolean abort = new AtomicBoolean();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (T item : items) {
        futures.add(
            pool.submit(
                () -> {
                  if (abort.get()) {
                    return;
                  }
                  try {
                    write.accept(item);
                  } catch (RuntimeException | Error e) {
                    abort.set(true);
                    throw e;
                  }
                }));
      }
      RuntimeException first = null;
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof Error error) {
            throw error;
          }
          if (first == null && cause instanceof RuntimeException re) {
            first = re;
          }
        } catch (InterruptedException e) {
          ReleaseException stop = lease.stop(e);
          abort.set(true);
          pool.shutdownNow();
          awaitEnd(pool);
          Thread.currentThread().interrupt();
          throw stop;
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Waits until every thread of {@code pool} (shut down) has ended, through interrupts too. */
  private static void awaitEnd(ExecutorService pool) {
    while (true) {
      try {
        if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
          return;
        }
      } catch (InterruptedException e) {
        // interrupted again: the operation stops already, and its caller sets the status again
      }
    }
  }
}
