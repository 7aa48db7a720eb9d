package dev.capstan.update.event;

import dev.capstan.common.Listeners;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives progress events. Called on the applying (or building) thread; must not block long. A
 * {@link RuntimeException} a listener throws does not break the update: it is logged at WARN
 * (naming the listener's class and the event's type) and the update goes on.
 */
@FunctionalInterface
public interface UpdateListener {

  /**
   * Receives one event.
   *
   * @param event what happened
   */
  void onEvent(UpdateEvent event);

  /**
   * Called as an apply starts, before any of its events: the listener returned receives every event
   * of that apply, from {@code started} itself to its {@link UpdateEvent.UpdateFinished}, and no
   * event of another apply. A listener that keeps state per apply (a span, a start time) returns a
   * new one here.
   *
   * @param started the apply's first event
   * @return the listener for this apply; by default this listener
   */
  default UpdateListener begin(UpdateEvent.UpdateStarted started) {
    return this;
  }

  /**
   * Returns a listener that ignores every event.
   *
   * @return a no-op listener
   */
  static UpdateListener none() {
    return event -> {};
  }

  /**
   * Returns a listener that hands each event to every one of {@code listeners}, in order. One that
   * throws is logged at WARN (logger {@code dev.capstan.update.event.UpdateListener}) and the
   * others still receive the event; {@link #begin} asks each for its listener of the apply.
   *
   * @param listeners the listeners
   * @return one listener for all of them
   */
  static UpdateListener all(List<? extends UpdateListener> listeners) {
    List<UpdateListener> copy = List.copyOf(listeners);
    Logger log = LoggerFactory.getLogger(UpdateListener.class);
    return new UpdateListener() {
      @Override
      public void onEvent(UpdateEvent event) {
        for (UpdateListener l : copy) {
          Listeners.deliver(log, l, event, UpdateListener::onEvent);
        }
      }

      @Override
      public UpdateListener begin(UpdateEvent.UpdateStarted started) {
        List<UpdateListener> scoped = new ArrayList<>();
        for (UpdateListener l : copy) {
          Listeners.deliver(log, l, started, (x, e) -> scoped.add(x.begin(e)));
        }
        return all(scoped);
      }
    };
  }
}
