package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * How {@link Orchestrator#awaitReady(java.util.List, ReadinessWait)} waits.
 *
 * @param timeout how long to wait in all; zero judges once
 * @param waitForLoadBalancer whether a Service of type LoadBalancer is healthy only once it has an
 *     address (as Helm's {@code --wait} and kstatus have it), or once it exists
 * @param progress hears, while the wait goes on, what is still pending and why: first after {@code
 *     5s}, then when that changes (at most every 5 s) and every 30 s while it does not; called on
 *     the waiting thread
 */
public record ReadinessWait(
    Duration timeout, boolean waitForLoadBalancer, Consumer<Readiness.Progress> progress) {
  /** Refuses a negative timeout. */
  public ReadinessWait {
    requireNonNull(timeout, "timeout");
    requireNonNull(progress, "progress");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException(
          "timeout must not be negative: " + dev.capstan.common.Durations.format(timeout));
    }
  }

  /** Waits up to {@code timeout}, for load balancer addresses too, reporting no progress. */
  public static ReadinessWait of(Duration timeout) {
    return new ReadinessWait(timeout, true, p -> {});
  }

  /** A copy with {@code waitForLoadBalancer} set. */
  public ReadinessWait withWaitForLoadBalancer(boolean waitForLoadBalancer) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress);
  }

  /** A copy reporting progress to {@code progress}. */
  public ReadinessWait withProgress(Consumer<Readiness.Progress> progress) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress);
  }
}
