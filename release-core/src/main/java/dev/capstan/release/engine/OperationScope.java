package dev.capstan.release.engine;

import dev.capstan.common.Listeners;
import dev.capstan.release.error.CastFailedException;
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

  private OperationScope(
      String release, Operation operation, long startedAt, List<ReleaseListener> listeners) {
    this.release = release;
    this.operation = operation;
    this.startedAt = startedAt;
    this.listeners = listeners;
  }

  /** Starts an operation: asks each listener for its listener of it, and sends the first event. */
  static OperationScope begin(List<ReleaseListener> listeners, String release, Operation op) {
    long startedAt = System.nanoTime();
    ReleaseEvent.OperationStarted started = new ReleaseEvent.OperationStarted(release, op);
    List<ReleaseListener> scoped = new ArrayList<>();
    for (ReleaseListener listener : listeners) {
      Listeners.deliver(LOG, listener, started, (l, e) -> scoped.add(l.begin(e)));
    }
    OperationScope scope = new OperationScope(release, op, startedAt, List.copyOf(scoped));
    scope.emit(started);
    return scope;
  }

  /**
   * Delivers an event to every listener; none after the operation's {@code Finished} (it is the
   * last).
   */
  void emit(ReleaseEvent event) {
    if (finished.get() && !(event instanceof ReleaseEvent.Finished)) {
      return;
    }
    if (event instanceof ReleaseEvent.Done) {
      writes.incrementAndGet();
    }
    deliver(listeners, event);
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
      finish(Outcome.SUCCEEDED, p.revision(), null, p.counts(), null);
    } else if (result instanceof CastResult r) {
      finish(Outcome.SUCCEEDED, r.release(), r.plan().counts(), null);
    } else if (result instanceof UninstallResult u) {
      finish(
          Outcome.SUCCEEDED,
          u.release(),
          Map.of(Action.PRUNE, u.deleted().size(), Action.RETAIN, u.retained().size()),
          null);
    } else {
      finish(Outcome.SUCCEEDED, 0, null, Map.of(), null);
    }
  }

  /** Sends the {@code Finished} event of an operation that threw {@code error}; once. */
  void failed(Throwable error) {
    String reason = error.getMessage() == null ? error.toString() : error.getMessage();
    if (error instanceof CastFailedException e) {
      Release failed = e.result().release();
      String why = failed.failure();
      finish(Outcome.FAILED, failed, e.result().plan().counts(), why != null ? why : reason);
    } else if (error instanceof UninstallFailedException e) {
      String why = e.release().failure();
      finish(Outcome.FAILED, e.release(), Map.of(), why != null ? why : reason);
    } else if (error instanceof ReleaseConflictException e) {
      finish(Outcome.CONFLICT, e.plan().revision(), null, e.plan().counts(), reason);
    } else if (error instanceof StalePlanException e) {
      finish(Outcome.STALE, e.plan().revision(), null, e.plan().counts(), reason);
    } else {
      finish(outcome(error), 0, null, Map.of(), reason);
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
      Outcome outcome, Release recorded, Map<Action, Integer> changes, @Nullable String reason) {
    finish(outcome, recorded.revision(), recorded, changes, reason);
  }

  private void finish(
      Outcome outcome,
      int revision,
      @Nullable Release recorded,
      Map<Action, Integer> changes,
      @Nullable String reason) {
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
            reason));
  }
}
