package dev.capstan.release.engine;

import dev.capstan.release.event.Operation;
import dev.capstan.release.event.OperationMdc;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * An operation's keys in this thread's MDC ({@link OperationMdc}) until {@link #close()}, which
 * puts back what the thread had before.
 */
final class LogContext {
  private static final String[] KEYS = {
    OperationMdc.NAMESPACE, OperationMdc.RELEASE, OperationMdc.OPERATION, OperationMdc.REVISION
  };

  private final @Nullable String[] previous = new String[KEYS.length];

  private LogContext(String release, Operation operation, int revision) {
    int slash = release.indexOf('/');
    @Nullable String[] values = {
      slash < 0 ? "" : release.substring(0, slash),
      release.substring(slash + 1),
      operation.id(),
      revision > 0 ? Integer.toString(revision) : null
    };
    for (int i = 0; i < KEYS.length; i++) {
      previous[i] = MDC.get(KEYS[i]);
      put(KEYS[i], values[i]);
    }
  }

  /**
   * Puts the keys of the operation on {@code release} ({@code namespace/name}) in this thread's
   * MDC; the revision only when above 0.
   */
  static LogContext enter(String release, Operation operation, int revision) {
    return new LogContext(release, operation, revision);
  }

  private static void put(String key, @Nullable String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }

  /** Puts back what this thread's MDC held under the keys before. */
  void close() {
    for (int i = 0; i < KEYS.length; i++) {
      put(KEYS[i], previous[i]);
    }
  }
}
