package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;

/**
 * A clock that moves only when told to, for tests of leases and timestamps: the shared {@link
 * dev.capstan.common.ManualClock} (which also sleeps without blocking), kept under this name for
 * release-core's callers. Thread-safe.
 */
public final class ManualClock extends dev.capstan.common.ManualClock {
  private ManualClock(Instant now) {
    super(now);
  }

  /**
   * A clock standing at {@code start}.
   *
   * @param start the first instant
   * @return the clock
   */
  public static ManualClock at(Instant start) {
    return new ManualClock(requireNonNull(start, "start"));
  }

  /** Moves the clock forward by {@code duration}. */
  @Override
  public ManualClock advance(Duration duration) {
    super.advance(duration);
    return this;
  }
}
