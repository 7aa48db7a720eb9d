package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 *
 * <p>The writes run on the engine's {@link Workers}, at most {@code parallelism} of them each
 * taking the next item in order.
 */
final class Parallel {
  private Parallel() {}

  static <T> void forEach(
      List<T> items, int parallelism, String threadName, LeaseKeeper lease, Consumer<T> write) {
    if (parallelism == 1 || items.size() <= 1) {
      items.forEach(write); // on this thread: its own check sees an interrupt
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean abort = new AtomicBoolean();
    Throwable[] failures = new Throwable[items.size()];
    Workers.Crew crew =
        Workers.start(
            Math.min(parallelism, items.size()),
            threadName,
            () -> {
              int i;
              while (!abort.get() && (i = next.getAndIncrement()) < items.size()) {
                try {
                  write.accept(items.get(i));
                } catch (RuntimeException | Error e) {
                  failures[i] = e;
                  abort.set(true);
                }
              }
            });
    try {
      crew.awaitEnd();
    } catch (InterruptedException e) {
      ReleaseException stop = lease.stop(e);
      abort.set(true);
      crew.interruptAndAwaitEnd();
      Thread.currentThread().interrupt();
      throw stop;
    }
    RuntimeException first = null;
    for (Throwable failure : failures) {
      if (failure instanceof Error error) {
        throw error;
      }
      if (first == null && failure instanceof RuntimeException re) {
        first = re;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
