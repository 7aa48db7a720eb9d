package dev.capstan.release;

import dev.capstan.release.internal.DaemonThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Runs one write per item, at most {@code parallelism} at once: the independent objects of one
 * rank. After a failure no further item starts; the ones running finish, and the first failure in
 * item order is thrown.
 */
final class Parallel {
  private Parallel() {}

  static <T> void forEach(
      List<T> items, int parallelism, String threadName, String what, Consumer<T> write) {
    if (parallelism == 1 || items.size() <= 1) {
      items.forEach(write);
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
          Thread.currentThread().interrupt();
          abort.set(true);
          throw new ReleaseException("interrupted while " + what, e);
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
