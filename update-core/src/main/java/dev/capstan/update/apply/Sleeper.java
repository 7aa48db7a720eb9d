package dev.capstan.update.apply;

import dev.capstan.common.ManualClock;
import java.time.Duration;

/** Pauses between polls. Tests inject one that advances a fake clock instead of sleeping. */
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
   * @param clock the clock the update reads time from (pass the same one to {@code
   *     ApplyOptions.withClock})
   * @return {@code clock::sleep}
   */
  static Sleeper manual(ManualClock clock) {
    return clock::sleep;
  }
}
