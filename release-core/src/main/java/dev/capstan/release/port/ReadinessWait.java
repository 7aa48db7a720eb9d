package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.health.CustomHealth;
import dev.capstan.release.model.ResourceRef;
import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
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
 * @param written the objects the caller's operation has just written through the same orchestrator,
 *     with nothing between: the orchestrator may take its write's answer for a first read of them
 *     (Kubernetes: a Service that was current as written is not read again)
 * @param health the rules asked before the built-in ones (users' health rules over the shipped
 *     defaults, {@link dev.capstan.common.health.HealthRuleCompiler}); {@link CustomHealth#none()}
 *     for the built-in rules alone
 * @param stop whether the caller asks the wait to stop without a verdict (a newer revision
 *     supersedes the cast): asked before the wait and at least every {@link #STOP_CHECK} while it
 *     goes on, on the waiting thread; once it answers {@code true} the wait returns {@link
 *     Readiness.Stopped}
 */
public record ReadinessWait(
    Duration timeout,
    boolean waitForLoadBalancer,
    Consumer<Readiness.Progress> progress,
    Set<ResourceRef> written,
    CustomHealth health,
    BooleanSupplier stop) {
  /** How often at least a wait asks {@link #stop()}: 200 ms. */
  public static final Duration STOP_CHECK = Duration.ofMillis(200);

  /** Refuses a negative timeout; copies {@code written}. */
  public ReadinessWait {
    requireNonNull(timeout, "timeout");
    requireNonNull(progress, "progress");
    requireNonNull(health, "health");
    requireNonNull(stop, "stop");
    written = Set.copyOf(written);
    if (timeout.isNegative()) {
      throw new IllegalArgumentException(
          "timeout must not be negative: " + dev.capstan.common.Durations.format(timeout));
    }
  }

  /** A wait by the built-in rules alone ({@link CustomHealth#none()}) that nobody stops. */
  public ReadinessWait(
      Duration timeout,
      boolean waitForLoadBalancer,
      Consumer<Readiness.Progress> progress,
      Set<ResourceRef> written) {
    this(timeout, waitForLoadBalancer, progress, written, CustomHealth.none());
  }

  /** A wait judging by {@code health} before the built-in rules, that nobody stops. */
  public ReadinessWait(
      Duration timeout,
      boolean waitForLoadBalancer,
      Consumer<Readiness.Progress> progress,
      Set<ResourceRef> written,
      CustomHealth health) {
    this(timeout, waitForLoadBalancer, progress, written, health, () -> false);
  }

  /** A wait by the built-in rules alone ({@link CustomHealth#none()}) that {@code stop} stops. */
  public ReadinessWait(
      Duration timeout,
      boolean waitForLoadBalancer,
      Consumer<Readiness.Progress> progress,
      Set<ResourceRef> written,
      BooleanSupplier stop) {
    this(timeout, waitForLoadBalancer, progress, written, CustomHealth.none(), stop);
  }

  /** A wait that takes nothing as just written, by the built-in rules alone, that nobody stops. */
  public ReadinessWait(
      Duration timeout, boolean waitForLoadBalancer, Consumer<Readiness.Progress> progress) {
    this(timeout, waitForLoadBalancer, progress, Set.of());
  }

  /** Whether the caller asks the wait to stop now. */
  public boolean stopAsked() {
    return stop.getAsBoolean();
  }

  /** Waits up to {@code timeout}, for load balancer addresses too, reporting no progress. */
  public static ReadinessWait of(Duration timeout) {
    return new ReadinessWait(timeout, true, p -> {});
  }

  /** A copy with {@code waitForLoadBalancer} set. */
  public ReadinessWait withWaitForLoadBalancer(boolean waitForLoadBalancer) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress, written, health, stop);
  }

  /** A copy reporting progress to {@code progress}. */
  public ReadinessWait withProgress(Consumer<Readiness.Progress> progress) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress, written, health, stop);
  }

  /** A copy with {@code written} as the objects just written. */
  public ReadinessWait withWritten(Set<ResourceRef> written) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress, written, health, stop);
  }

  /** A copy judging by {@code health} before the built-in rules. */
  public ReadinessWait withHealth(CustomHealth health) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress, written, health, stop);
  }

  /** A copy that stops when {@code stop} answers {@code true}. */
  public ReadinessWait withStop(BooleanSupplier stop) {
    return new ReadinessWait(timeout, waitForLoadBalancer, progress, written, health, stop);
  }
}
