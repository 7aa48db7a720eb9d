package dev.capstan.update.apply;

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
}
