package dev.capstan.release.engine;

import java.util.function.Supplier;

/**
 * Runs the bookkeeping an interrupted operation still owes (recording its outcome, giving its lease
 * up) with the calling thread's interrupt status cleared, since a store's I/O on an interrupted
 * thread (an HTTP client's, a file channel's) fails at once, and sets the status again after when
 * it was set before or an interrupt came meanwhile.
 */
final class Uninterrupted {
  private Uninterrupted() {}

  /** {@code body}'s result, computed with the interrupt status cleared. */
  static <T> T get(Supplier<T> body) {
    boolean interrupted = Thread.interrupted();
    try {
      return body.get();
    } finally {
      if (interrupted || Thread.interrupted()) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Runs {@code body} with the interrupt status cleared. */
  static void run(Runnable body) {
    get(
        () -> {
          body.run();
          return null;
        });
  }
}
