package dev.capstan.release.event;

/**
 * Receives {@link ReleaseEvent}s as a release operation progresses. Called on the operation's
 * threads (applies of one kind run in parallel): implementations must be thread-safe and quick. An
 * exception thrown by a listener is ignored.
 */
@FunctionalInterface
public interface ReleaseListener {

  /** Receives one event. */
  void on(ReleaseEvent event);

  /** A listener that ignores every event. */
  static ReleaseListener none() {
    return event -> {};
  }
}
