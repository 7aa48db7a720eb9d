package dev.capstan.k8s.testing;

import java.time.Duration;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Polls until the cluster reaches a state. The timeout only bounds a test that would otherwise
 * hang; tests never assert how long anything took.
 */
public final class Await {
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  private Await() {}

  /**
   * A read of cluster state that may throw (e.g. {@link
   * io.kubernetes.client.openapi.ApiException}).
   *
   * @param <T> what is read
   */
  @FunctionalInterface
  public interface Probe<T> {
    /** Reads the state; {@code null} means "not there yet". */
    @Nullable T read() throws Exception;
  }

  /**
   * Polls {@code probe} until it returns a non-null value and returns it.
   *
   * @throws AssertionError naming {@code what} when the timeout passes first
   */
  public static <T> T until(String what, Duration timeout, Probe<T> probe) {
    return until(what, timeout, probe, v -> true);
  }

  /**
   * Polls {@code probe} until it returns a value that {@code done} accepts and returns it.
   *
   * @throws AssertionError naming {@code what} and the last value read when the timeout passes
   *     first
   */
  public static <T> T until(String what, Duration timeout, Probe<T> probe, Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    @Nullable T last = null;
    @Nullable Exception lastError = null;
    while (true) {
      try {
        last = probe.read();
        lastError = null;
        if (last != null && done.test(last)) {
          return last;
        }
      } catch (Exception e) {
        lastError = e;
      }
      if (System.nanoTime() - deadline > 0) {
        AssertionError error =
            new AssertionError(
                "timed out after "
                    + dev.capstan.common.Durations.format(timeout)
                    + " waiting for "
                    + what
                    + "; last seen: "
                    + last);
        if (lastError != null) {
          error.initCause(lastError);
        }
        throw error;
      }
      try {
        Thread.sleep(POLL_INTERVAL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
