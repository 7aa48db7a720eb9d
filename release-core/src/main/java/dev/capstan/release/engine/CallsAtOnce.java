package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Independent calls that write nothing (the dry runs of {@link ServerVerification}), up to {@code
 * parallelism} at once, started in list order: once one has thrown, no further one starts and the
 * ones running finish. Each call's outcome is its result or what it threw; a call never started has
 * none, and comes after the first that threw.
 */
final class CallsAtOnce {
  private CallsAtOnce() {}

  /**
   * The outcome of each call, in list order: its result, the {@link RuntimeException} or {@link
   * Error} it threw, or {@code null} when it was not started.
   *
   * @throws ReleaseException if the calling thread is interrupted while it waits (the calls running
   *     are interrupted in turn; its interrupt status is set again)
   */
  static <T> List<@Nullable Object> run(List<Supplier<T>> calls, int parallelism) {
    @Nullable Object[] outcomes = new Object[calls.size()];
    if (parallelism <= 1 || calls.size() <= 1) {
      for (int i = 0; i < calls.size(); i++) {
        outcomes[i] = outcome(calls.get(i));
        if (outcomes[i] instanceof Throwable) {
          break;
        }
      }
      return Arrays.asList(outcomes);
    }
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean failed = new AtomicBoolean();
    Workers.Crew crew =
        Workers.start(
            Math.min(parallelism, calls.size()),
            "capstan-verify",
            () -> {
              int i;
              while (!failed.get() && (i = next.getAndIncrement()) < calls.size()) {
                Object o = outcome(calls.get(i));
                outcomes[i] = o;
                if (o instanceof Throwable) {
                  failed.set(true);
                }
              }
            });
    try {
      crew.awaitEnd();
      return Arrays.asList(outcomes);
    } catch (InterruptedException e) {
      failed.set(true);
      crew.interrupt(); // no wait: a dry run writes nothing, and the caller stops at once
      Thread.currentThread().interrupt();
      throw new ReleaseException(
          "interrupted while the plan was verified on the server; nothing was written", e);
    }
  }

  private static Object outcome(Supplier<?> call) {
    try {
      return call.get();
    } catch (RuntimeException | Error e) {
      return e;
    }
  }
}
