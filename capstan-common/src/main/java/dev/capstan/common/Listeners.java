package dev.capstan.common;

import java.util.function.BiConsumer;
import org.slf4j.Logger;

/**
 * Delivers an event to a host's listener so that a listener that throws breaks nothing: the one
 * place both cores call the listeners a host gave them.
 */
public final class Listeners {
  private Listeners() {}

  /**
   * Calls {@code deliver.accept(listener, event)}. A {@link RuntimeException} it throws goes no
   * further: it is logged on {@code log} at WARN, naming the listener's class and the event's type,
   * with the exception, and the operation that sent the event goes on. An {@link Error} propagates.
   *
   * @return whether the listener returned normally
   */
  public static <L, E> boolean deliver(
      Logger log, L listener, E event, BiConsumer<? super L, ? super E> deliver) {
    try {
      deliver.accept(listener, event);
      return true;
    } catch (RuntimeException e) {
      log.warn(
          "listener {} threw on event {}; the operation goes on without it",
          listener.getClass().getName(),
          event.getClass().getSimpleName(),
          e);
      return false;
    }
  }
}
