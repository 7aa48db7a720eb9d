package dev.capstan.release.engine;

import dev.capstan.common.Listeners;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.Outcome;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.model.Release;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One operation's events: each goes to every listener's listener for this operation ({@link
 * ReleaseListener#begin}), each listener isolated from the others' failures; the writes are
 * counted; and the operation is closed with one {@link ReleaseEvent.Finished}, built from what it
 * returned or threw (ARCHITECTURE.md, "Observability").
 */
final class OperationScope {
  static final Logger LOG = LoggerFactory.getLogger("dev.capstan.release.ReleaseController");

  private final String release;
  private final Operation operation;
  private final long startedAt;
  private final List<ReleaseListener> listeners;
  private final AtomicInteger writes = new AtomicInteger();
  private final AtomicBoolean finished = new AtomicBoolean();

  /** The revision the operation works on, once an event named it (for the MDC). */
  private final AtomicInteger revision = new AtomicInteger();

  /** The listeners that threw in this operation: each is logged at WARN once. */
  private final Listeners.Failures failures;

  private OperationScope(
      String release,
      Operation operation,
      long startedAt,
      List<ReleaseListener> listeners,
      Listeners.Failures failures) {
    this.release = release;
    this.operation = operation;
    this.startedAt = startedAt;
    this.listeners = listeners;
    this.failures = failures;
  }

  /** Starts an operation: asks each listener for its listener of it, and sends the first event. */
  static OperationScope begin(List<ReleaseListener> listeners, String release, Operation op) {
    long startedAt = System.nanoTime();
    ReleaseEvent.OperationStarted started = new ReleaseEvent.OperationStarted(release, op);
    List<ReleaseListener> scoped = new ArrayList<>();
    Listeners.Failures failures = new Listeners.Failures();
    LogContext mdc = LogContext.enter(release, op, 0);
    try {
      for (ReleaseListener listener : listeners) {
        Listeners.deliver(LOG, listener, started, (l, e) -> scoped.add(l.begin(e)), failures);
      }
    } finally {
      mdc.close();
    }
    OperationScope scope =
        new OperationScope(release, op, startedAt, List.copyOf(scoped), failures);
    scope.emit(started);
    return scope;
  }

  /**
   * This operation's keys in the calling thread's MDC until the context is closed (ARCHITECTURE.md,
   * "Observability").
   */
  LogContext logContext() {
    return LogContext.enter(release, operation, revision.get());
  }

  /**
   * Delivers an event to every listener, with the operation's keys in the MDC, whichever thread
   * sends it; none after the operation's {@code Finished} (it is the last).
   */
  void emit(ReleaseEvent event) {
    if (finished.get() && !(event instanceof ReleaseEvent.Finished)) {
      return;
    }
    if (event instanceof ReleaseEvent.Done) {
      writes.incrementAndGet();
    }
    int named = revisionOf(event);
    if (named > 0) {
      revision.set(named);
    }
    LogContext mdc = logContext();
    try {
      for (ReleaseListener listener : listeners) {
        Listeners.deliver(LOG, listener, event, ReleaseListener::on, failures);
      }
    } finally {
      mdc.close();
    }
  }

  /** The revision an event names, or 0. */
  private static int revisionOf(ReleaseEvent event) {
    if (event instanceof ReleaseEvent.Planned p) {
      return p.plan().revision();
    }
    if (event instanceof ReleaseEvent.RecordSaved r) {
      return r.revision();
    }
    return event instanceof ReleaseEvent.Finished f ? f.revision() : 0;
  }

  /** Delivers an event that belongs to no operation to every listener. */
  static void deliver(List<ReleaseListener> listeners, ReleaseEvent event) {
    for (ReleaseListener listener : listeners) {
      Listeners.deliver(LOG, listener, event, ReleaseListener::on);
    }
  }

  /** Sends the {@code Finished} event of an operation that returned {@code result}; once. */
  void succeeded(Object result) {
    if (result instanceof Plan p) {
      finish(Outcome.SUCCEEDED, p.revision(), null, p.counts(), null, null);
    } else if (result instanceof CastResult r) {
      finish(Outcome.SUCCEEDED, r.release(), r.plan().counts(), null, null);
    } else if (result instanceof UninstallResult u) {
      finish(
          Outcome.SUCCEEDED,
          u.release(),
          Map.of(Action.PRUNE, u.deleted().size(), Action.RETAIN, u.retained().size()),
          null,
          null);
    } else {
      finish(Outcome.SUCCEEDED, 0, null, Map.of(), null, null);
    }
  }

  /** Sends the {@code Finished} event of an operation that threw {@code error}; once. */
  void failed(Throwable error) {
    String reason = error.getMessage() == null ? error.toString() : error.getMessage();
    if (error instanceof CastFailedException e) {
      Release failed = e.result().release();
      String why = failed.failure();
      finish(Outcome.FAILED, failed, e.result().plan().counts(), why != null ? why : reason, error);
    } else if (error instanceof UninstallFailedException e) {
      String why = e.release().failure();
      finish(Outcome.FAILED, e.release(), Map.of(), why != null ? why : reason, error);
    } else if (error instanceof ReleaseConflictException e) {
      finish(Outcome.CONFLICT, e.plan().revision(), null, e.plan().counts(), reason, error);
    } else if (error instanceof DestructiveChangeRefusedException e) {
      finish(Outcome.REFUSED, e.plan().revision(), null, e.plan().counts(), reason, error);
    } else if (error instanceof StalePlanException e) {
      finish(Outcome.STALE, e.plan().revision(), null, e.plan().counts(), reason, error);
    } else {
      finish(outcome(error), 0, null, Map.of(), reason, error);
    }
  }

  private static Outcome outcome(Throwable error) {
    if (error instanceof ReleaseLockedException) {
      return Outcome.LOCKED;
    }
    if (error instanceof InvalidReleaseException || error instanceof IllegalArgumentException) {
      return Outcome.INVALID;
    }
    if (error instanceof ReleaseNotFoundException) {
      return Outcome.NOT_FOUND;
    }
    return Outcome.ERROR;
  }

  private void finish(
      Outcome outcome,
      Release recorded,
      Map<Action, Integer> changes,
      @Nullable String reason,
      @Nullable Throwable error) {
    finish(outcome, recorded.revision(), recorded, changes, reason, error);
  }

  private void finish(
      Outcome outcome,
      int revision,
      @Nullable Release recorded,
      Map<Action, Integer> changes,
      @Nullable String reason,
      @Nullable Throwable error) {
    if (!finished.compareAndSet(false, true)) {
      return;
    }
    emit(
        new ReleaseEvent.Finished(
            release,
            operation,
            outcome,
            revision,
            recorded == null ? null : recorded.status(),
            changes,
            writes.get(),
            Duration.ofNanos(System.nanoTime() - startedAt),
            reason,
            error));
  }
}
