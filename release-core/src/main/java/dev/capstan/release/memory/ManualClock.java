package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when told to, for tests of leases and timestamps. Thread-safe. */
public final class ManualClock extends Clock {
  private volatile Instant now;

  private ManualClock(Instant now) {
    this.now = now;
  }

  /** A clock standing at {@code start}. */
  public static ManualClock at(Instant start) {
    return new ManualClock(requireNonNull(start, "start"));
  }

  /** Moves the clock forward by {@code duration}. */
  public synchronized ManualClock advance(Duration duration) {
    now = now.plus(duration);
    return this;
  }

  @Override
  public Instant instant() {
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
