package dev.capstan.release.engine;

import dev.capstan.common.Escapes;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * The controller's own listener, always first: every event as one log line, {@code namespace/name:
 * <describe()>}, escaped, on the logger {@code dev.capstan.release.ReleaseController}. INFO: the
 * outcome of each cast, rollback and uninstall, and a queue behind another holder's lease; WARN:
 * retries, fences, a lease taken over, a failed revert, warnings; DEBUG: each write, record, wave,
 * wait and plan; TRACE: each write as it starts.
 */
final class EventLog implements ReleaseListener {
  static final EventLog INSTANCE = new EventLog();

  private static final Logger LOG = OperationScope.LOG;

  private EventLog() {}

  @Override
  public void on(ReleaseEvent event) {
    Level level = level(event);
    if (!LOG.isEnabledForLevel(level)) {
      return;
    }
    String line = event.release() + ": " + Escapes.escape(event.describe());
    switch (level) {
      case ERROR -> LOG.error("{}", line);
      case WARN -> LOG.warn("{}", line);
      case INFO -> LOG.info("{}", line);
      case DEBUG -> LOG.debug("{}", line);
      case TRACE -> LOG.trace("{}", line);
    }
  }

  static Level level(ReleaseEvent event) {
    if (event instanceof ReleaseEvent.Finished f) {
      return f.operation() == Operation.PLAN ? Level.DEBUG : Level.INFO;
    }
    if (event instanceof ReleaseEvent.WaitingForLease) {
      return Level.INFO;
    }
    if (event instanceof ReleaseEvent.Retrying
        || event instanceof ReleaseEvent.Fenced
        || event instanceof ReleaseEvent.Warning
        || (event instanceof ReleaseEvent.Reverted r && !r.ok())
        || (event instanceof ReleaseEvent.LeaseAcquired l && l.takenOver() != null)) {
      return Level.WARN;
    }
    if (event instanceof ReleaseEvent.Started) {
      return Level.TRACE;
    }
    return Level.DEBUG;
  }
}
