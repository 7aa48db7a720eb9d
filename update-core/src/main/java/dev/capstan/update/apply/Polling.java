package dev.capstan.update.apply;

import dev.capstan.common.Sleeper;
import dev.capstan.update.UpdateException;
import java.time.Duration;

/** Pausing between polls, with interrupts turned into an {@link UpdateException}. */
final class Polling {
  private Polling() {}

  static void pause(Sleeper sleeper, Duration duration, String what) {
    try {
      sleeper.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UpdateException("interrupted while waiting for " + what, e);
    }
  }
}
