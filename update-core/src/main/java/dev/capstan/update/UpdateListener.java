package dev.capstan.update;

/** Receives progress events. Called on the applying (or building) thread; must not block long. */
@FunctionalInterface
public interface UpdateListener {

  /**
   * Receives one event.
   *
   * @param event what happened
   */
  void onEvent(UpdateEvent event);

  /**
   * Returns a listener that ignores every event.
   *
   * @return a no-op listener
   */
  static UpdateListener none() {
    return event -> {};
  }
}
