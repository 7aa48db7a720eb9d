package dev.capstan.common;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
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

  /**
   * Calls {@code deliver.accept(listener, event)} within one operation whose listeners' failures
   * {@code failures} keeps: a listener's first {@link RuntimeException} in the operation is logged
   * on {@code log} at WARN with the exception, as {@link #deliver(Logger, Object, Object,
   * BiConsumer)} logs it; its later ones only at DEBUG, in one line without the stack trace, so a
   * listener that throws on every event writes one warning per operation, not one per event. An
   * {@link Error} propagates.
   *
   * @return whether the listener returned normally
   */
  public static <L, E> boolean deliver(
      Logger log,
      L listener,
      E event,
      BiConsumer<? super L, ? super E> deliver,
      Failures failures) {
    try {
      deliver.accept(listener, event);
      return true;
    } catch (RuntimeException e) {
      if (failures.first(listener)) {
        log.warn(
            "listener {} threw on event {}; the operation goes on without it (its further failures"
                + " in this operation are logged at DEBUG)",
            listener.getClass().getName(),
            event.getClass().getSimpleName(),
            e);
      } else if (log.isDebugEnabled()) {
        log.debug(
            "listener {} threw again on event {}: {}",
            listener.getClass().getName(),
            event.getClass().getSimpleName(),
            Escapes.escape(String.valueOf(e)));
      }
      return false;
    }
  }

  /**
   * The listeners that threw in one operation (by identity), so each is logged at WARN once per
   * operation. Thread-safe: an operation's events come from several threads.
   */
  public static final class Failures {
    private final Set<Object> failed = Collections.newSetFromMap(new IdentityHashMap<>());

    /** No listener has failed yet. */
    public Failures() {}

    /** Records a failure of {@code listener}; whether it is its first in this operation. */
    synchronized boolean first(Object listener) {
      return failed.add(listener);
    }
  }
}
