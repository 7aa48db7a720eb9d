package dev.capstan.release.event;

/**
 * Receives {@link ReleaseEvent}s as a release operation progresses. Called on the operation's
 * threads (applies of one kind run in parallel): implementations must be thread-safe and quick. A
 * {@link RuntimeException} thrown by a listener does not break the operation: it is logged at WARN
 * (logger {@code dev.capstan.release.ReleaseController}, naming the listener's class and the
 * event's type) and the operation goes on; the other listeners still receive the event.
 */
@FunctionalInterface
public interface ReleaseListener {

  /** Receives one event. */
  void on(ReleaseEvent event);

  /**
   * Called as an operation starts, on the thread that called it, before any of the operation's
   * events: the listener returned receives every event of that operation, from {@code started}
   * itself to its {@link ReleaseEvent.Finished}, on whatever thread sends it, and no event of
   * another operation. A listener that keeps state per operation (a span, a start time) returns a
   * new one here, so that operations running at once, on one release or several, never mix.
   *
   * @return the listener for this operation; by default this listener
   */
  default ReleaseListener begin(ReleaseEvent.OperationStarted started) {
    return this;
  }

  /** A listener that ignores every event. */
  static ReleaseListener none() {
    return event -> {};
  }
}
