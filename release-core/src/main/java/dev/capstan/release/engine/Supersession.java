package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.CastSupersededException;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Whether a newer revision supersedes a cast, and the failure that stops it (ARCHITECTURE.md,
 * "Superseding a wait"): asked before each wave's writes and, through the health wait, while it
 * waits; never during a write.
 *
 * @param asked answers {@code true} once a newer revision supersedes the cast (cheap, non-blocking)
 */
record Supersession(BooleanSupplier asked) {
  Supersession {
    requireNonNull(asked, "asked");
  }

  /**
   * Stops the cast before a wave's writes when a newer revision supersedes it.
   *
   * @throws CastSupersededException when superseded
   */
  void checkBeforeWave() {
    if (asked.getAsBoolean()) {
      throw stopped("stopped before the next wave's writes");
    }
  }

  /** The failure of a cast whose health wait of {@code waitedFor} stopped for a newer revision. */
  CastSupersededException stoppedWaiting(List<ResourceRef> waitedFor) {
    return stopped(
        "stopped waiting for "
            + waitedFor.size()
            + " object(s) to be healthy ("
            + String.join(", ", waitedFor.stream().limit(3).map(ResourceRef::key).toList())
            + (waitedFor.size() > 3 ? ", …" : "")
            + ")");
  }

  private static CastSupersededException stopped(String where) {
    return new CastSupersededException(
        "superseded by a newer revision of the release: "
            + where
            + "; nothing more was written, and the newer revision is cast next");
  }
}
