package dev.capstan.update.apply;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.Sleeper;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.internal.GoDuration;
import java.time.Clock;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How the applier behaves. Start from {@link #defaults()} and change it with the withers.
 *
 * @param timeout how long each workload's rollout may take (CRDs get at least two minutes)
 * @param rollbackOnFailure whether a failure restores every touched workload, in reverse order
 * @param waiter how rollouts are awaited; null to poll the cluster ({@link RolloutWaiter#polling})
 * @param clock the time source for timeouts
 * @param sleeper how to pause between polls
 * @param pollInterval the pause between polls
 * @param listener receives progress events
 */
public record ApplyOptions(
    Duration timeout,
    boolean rollbackOnFailure,
    @Nullable RolloutWaiter waiter,
    Clock clock,
    Sleeper sleeper,
    Duration pollInterval,
    UpdateListener listener) {

  /** The default per-workload rollout timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

  /** Validates the fields. */
  public ApplyOptions {
    requireNonNull(timeout, "timeout");
    requireNonNull(clock, "clock");
    requireNonNull(sleeper, "sleeper");
    requireNonNull(pollInterval, "pollInterval");
    requireNonNull(listener, "listener");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException(
          "timeout must be positive: " + Escapes.quote(GoDuration.format(timeout)));
    }
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException(
          "pollInterval must be positive: " + Escapes.quote(GoDuration.format(pollInterval)));
    }
  }

  /**
   * Returns the defaults: 5 minutes per rollout, rollback on failure, polling every 2 seconds on
   * the system clock, no listener.
   *
   * @return the defaults
   */
  public static ApplyOptions defaults() {
    return new ApplyOptions(
        DEFAULT_TIMEOUT,
        true,
        null,
        Clock.systemUTC(),
        Sleeper.system(),
        Duration.ofSeconds(2),
        UpdateListener.none());
  }

  /**
   * Returns a copy with another rollout timeout.
   *
   * @param newTimeout the timeout, positive
   * @return the copy
   */
  public ApplyOptions withTimeout(Duration newTimeout) {
    return new ApplyOptions(
        newTimeout, rollbackOnFailure, waiter, clock, sleeper, pollInterval, listener);
  }

  /**
   * Returns a copy that does or does not roll back on failure.
   *
   * @param rollback whether to roll back
   * @return the copy
   */
  public ApplyOptions withRollbackOnFailure(boolean rollback) {
    return new ApplyOptions(timeout, rollback, waiter, clock, sleeper, pollInterval, listener);
  }

  /**
   * Returns a copy with another rollout waiter.
   *
   * @param newWaiter the waiter
   * @return the copy
   */
  public ApplyOptions withWaiter(RolloutWaiter newWaiter) {
    return new ApplyOptions(
        timeout, rollbackOnFailure, newWaiter, clock, sleeper, pollInterval, listener);
  }

  /**
   * Returns a copy with another time source.
   *
   * @param newClock the clock
   * @return the copy
   */
  public ApplyOptions withClock(Clock newClock) {
    return new ApplyOptions(
        timeout, rollbackOnFailure, waiter, newClock, sleeper, pollInterval, listener);
  }

  /**
   * Returns a copy with another sleeper.
   *
   * @param newSleeper the sleeper
   * @return the copy
   */
  public ApplyOptions withSleeper(Sleeper newSleeper) {
    return new ApplyOptions(
        timeout, rollbackOnFailure, waiter, clock, newSleeper, pollInterval, listener);
  }

  /**
   * Returns a copy with another poll interval.
   *
   * @param interval the interval, positive
   * @return the copy
   */
  public ApplyOptions withPollInterval(Duration interval) {
    return new ApplyOptions(timeout, rollbackOnFailure, waiter, clock, sleeper, interval, listener);
  }

  /**
   * Returns a copy with another listener (for several, {@link UpdateListener#all}); the apply logs
   * every event itself as well.
   *
   * @param newListener the listener
   * @return the copy
   */
  public ApplyOptions withListener(UpdateListener newListener) {
    return new ApplyOptions(
        timeout, rollbackOnFailure, waiter, clock, sleeper, pollInterval, newListener);
  }
}
