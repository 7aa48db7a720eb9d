package dev.capstan.common;

import java.time.Duration;

/**
 * Pauses between retries and polls. Host tests pass {@code manualClock::sleep}, which advances a
 * {@link ManualClock} instead of blocking and records every pause.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Pauses.
   *
   * @param duration how long
   * @throws InterruptedException when the thread is interrupted
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Returns the sleeper that blocks the calling thread.
   *
   * @return {@link Thread#sleep(long)}
   */
  static Sleeper system() {
    return d -> Thread.sleep(d.toMillis());
  }

  /**
   * Returns the sleeper of a manual clock, for host tests: it advances the clock instead of
   * blocking and records every pause ({@link ManualClock#sleeps()}).
   *
   * @param clock the clock the code under test reads time from
   * @return {@code clock::sleep}
   */
  static Sleeper manual(ManualClock clock) {
    return clock::sleep;
  }
}
