package dev.capstan.common;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * A clock that moves only when told to, for host tests of waits, leases and timestamps: {@link
 * #advance} moves it, and {@link #sleep} is a sleeper that advances it instead of blocking (so
 * {@code clock::sleep} fits update-core's {@code Sleeper}), records the pause, then runs the action
 * set with {@link #onSleep} (to change the world while "time passes"). Always in UTC. Thread-safe.
 */
public class ManualClock extends Clock {
  /** Where {@link #create()} starts: 2025-01-01T00:00:00Z. */
  public static final Instant DEFAULT_START = Instant.parse("2025-01-01T00:00:00Z");

  private Instant now;
  private final List<Duration> sleeps = new ArrayList<>();
  private volatile Runnable onSleep = () -> {};

  /**
   * Creates a clock standing at {@code start}; subclasses use it.
   *
   * @param start the first instant
   */
  protected ManualClock(Instant start) {
    this.now = requireNonNull(start, "start");
  }

  /**
   * Returns a clock standing at {@code start}.
   *
   * @param start the first instant
   * @return the clock
   */
  public static ManualClock at(Instant start) {
    return new ManualClock(start);
  }

  /**
   * Returns a clock standing at {@link #DEFAULT_START}.
   *
   * @return the clock
   */
  public static ManualClock create() {
    return new ManualClock(DEFAULT_START);
  }

  /**
   * Moves the clock forward.
   *
   * @param duration how far; not negative
   * @return this clock
   * @throws IllegalArgumentException when {@code duration} is negative
   */
  public ManualClock advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a clock cannot go back: " + Durations.format(duration));
    }
    synchronized (this) {
      now = now.plus(duration);
    }
    return this;
  }

  /**
   * Sleeps without blocking: records the pause, advances the clock by it, then runs the {@link
   * #onSleep} action.
   *
   * @param duration how long the caller wanted to pause
   */
  public void sleep(Duration duration) {
    synchronized (this) {
      sleeps.add(duration);
    }
    advance(duration);
    onSleep.run();
  }

  /**
   * Sets what runs after every {@link #sleep}.
   *
   * @param action the action, for example one that finishes a rollout
   * @return this clock
   */
  public ManualClock onSleep(Runnable action) {
    this.onSleep = requireNonNull(action, "action");
    return this;
  }

  /**
   * Returns every pause asked for so far.
   *
   * @return the durations, oldest first
   */
  public synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
