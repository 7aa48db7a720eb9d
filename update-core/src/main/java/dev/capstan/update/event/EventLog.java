package dev.capstan.update.event;

import dev.capstan.common.Escapes;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Every update event as one escaped log line ({@link UpdateEvent#message()}). INFO: an apply's
 * outcome and a blocked plan; WARN: a rollback (done or failed) and a retried image build; DEBUG:
 * the rest (each CRD and workload step, each plan).
 */
public final class EventLog implements UpdateListener {
  private final Logger log;

  private EventLog(Logger log) {
    this.log = log;
  }

  /**
   * Returns a listener that logs on {@code log}.
   *
   * @param log the logger
   * @return the listener
   */
  public static EventLog on(Logger log) {
    return new EventLog(log);
  }

  @Override
  public void onEvent(UpdateEvent event) {
    Level level = level(event);
    if (!log.isEnabledForLevel(level)) {
      return;
    }
    String line = Escapes.escape(event.message());
    switch (level) {
      case ERROR -> log.error("{}", line);
      case WARN -> log.warn("{}", line);
      case INFO -> log.info("{}", line);
      case DEBUG -> log.debug("{}", line);
      case TRACE -> log.trace("{}", line);
    }
  }

  static Level level(UpdateEvent event) {
    if (event instanceof UpdateEvent.UpdateFinished
        || (event instanceof UpdateEvent.Planned p && p.blocked() > 0)) {
      return Level.INFO;
    }
    if (event instanceof UpdateEvent.WorkloadRolledBack
        || event instanceof UpdateEvent.RollbackFailed
        || event instanceof UpdateEvent.ImageBuildRetrying) {
      return Level.WARN;
    }
    return Level.DEBUG;
  }
}
