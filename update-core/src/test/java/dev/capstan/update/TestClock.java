package dev.capstan.update;

import dev.capstan.update.apply.Sleeper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** A clock that only moves when its sleeper is asked to sleep; records every pause. */
public final class TestClock extends Clock {
  private Instant now = Instant.parse("2025-01-01T00:00:00Z");
  private final List<Duration> sleeps = new ArrayList<>();
  private Runnable onSleep = () -> {};

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public synchronized Instant instant() {
    return now;
  }

  /** A sleeper that advances this clock instead of blocking. */
  public Sleeper sleeper() {
    return d -> {
      synchronized (this) {
        sleeps.add(d);
        now = now.plus(d);
      }
      onSleep.run();
    };
  }

  /** Runs an action after every sleep (to change the world while "time passes"). */
  public TestClock onSleep(Runnable action) {
    this.onSleep = action;
    return this;
  }

  public synchronized List<Duration> sleeps() {
    return List.copyOf(sleeps);
  }
}
