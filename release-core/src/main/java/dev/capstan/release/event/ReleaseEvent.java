package dev.capstan.release.event;

import dev.capstan.common.Durations;
import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.Readiness;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * Progress of a release operation, in the order things happen: {@link OperationStarted} first,
 * {@link Finished} last. Every event names its release ({@code namespace/name}). Events carry
 * references, actions and reasons, never content, so no secret value can reach a listener.
 */
public sealed interface ReleaseEvent {

  /** The release, {@code namespace/name}. */
  String release();

  /** One line for people, e.g. {@code apply secret/default/creds (create)}. */
  String describe();

  /** The plan was computed. */
  record Planned(String release, Plan plan) implements ReleaseEvent {
    @Override
    public String describe() {
      return "planned revision "
          + plan.revision()
          + ": "
          + dev.capstan.release.plan.PlanRenderer.summary(plan);
    }
  }

  /**
   * An operation began: the first event of every operation, sent on the calling thread before
   * anything is read. Its {@link Finished} follows last.
   *
   * @param operation what runs
   */
  record OperationStarted(String release, Operation operation) implements ReleaseEvent {
    /** Validates the fields. */
    public OperationStarted {
      Objects.requireNonNull(operation, "operation");
    }

    @Override
    public String describe() {
      return operation.id() + " started";
    }
  }

  /** The operation lease was taken, possibly over an expired one. */
  record LeaseAcquired(String release, String holder, @Nullable Lease takenOver)
      implements ReleaseEvent {
    @Override
    public String describe() {
      return takenOver == null
          ? "lease acquired by " + holder
          : "lease acquired by "
              + holder
              + ", taking over from "
              + takenOver.holder()
              + " (expired "
              + takenOver.expiresAt()
              + ")";
    }
  }

  /**
   * The operation lease is held by another live holder and this operation queues behind it (see
   * {@code ReleaseControllerBuilder#waitForLease}).
   *
   * @param holder who holds it
   * @param expiresAt when its lease lapses unless renewed
   * @param maxWait how long this operation waits at most
   */
  record WaitingForLease(
      String release, String holder, java.time.Instant expiresAt, Duration maxWait)
      implements ReleaseEvent {
    @Override
    public String describe() {
      return "waiting up to "
          + Durations.format(maxWait)
          + " for the lease held by "
          + holder
          + " (expires "
          + expiresAt
          + " unless renewed)";
    }
  }

  /**
   * This operation, waiting for the lease, asked the cast holding it to yield (see {@code
   * ReleaseControllerBuilder#askHoldersToYield}): the holder stops at its next check and gives the
   * lease up, its revision recorded {@code FAILED} as superseded.
   *
   * @param holder who holds the lease and was asked
   */
  record AskedToYield(String release, String holder) implements ReleaseEvent {
    @Override
    public String describe() {
      return "asked " + holder + ", which holds the lease, to yield it to this cast";
    }
  }

  /**
   * A step failed for a reason that may pass (the API server unreachable or overloaded) and is
   * tried again after a pause.
   *
   * @param operation what is retried, e.g. {@code renew the lease} or {@code PUT secrets/NAME}
   * @param attempt the number of the coming attempt (2 for the first retry)
   * @param delay the pause before it
   * @param reason why the last attempt failed
   */
  record Retrying(String release, String operation, int attempt, Duration delay, String reason)
      implements ReleaseEvent {
    @Override
    public String describe() {
      return "retrying "
          + operation
          + " in "
          + Durations.format(delay)
          + " (attempt "
          + attempt
          + "): "
          + reason;
    }
  }

  /** A record was saved. */
  record RecordSaved(String release, int revision, ReleaseStatus status) implements ReleaseEvent {
    @Override
    public String describe() {
      return "recorded revision " + revision + " as " + status.id();
    }
  }

  /**
   * A hook is about to run: its object is created next (after the deletion its {@code
   * before-hook-creation} policy asks for). {@link HookFinished} follows.
   *
   * @param phase the phase it runs in
   * @param ref its object
   */
  record HookStarted(String release, HookPhase phase, ResourceRef ref) implements ReleaseEvent {
    @Override
    public String describe() {
      return phase + " hook " + ref.key() + " ...";
    }
  }

  /**
   * The Job or Pod of a hook is created and awaited to completion, for at most {@code timeout};
   * while it runs, {@link StillWaiting} reports what it is doing when the orchestrator can tell.
   * {@link HookFinished} follows.
   *
   * @param phase the phase it runs in
   * @param ref its object
   * @param timeout how long it may run: its own ({@code capstan.dev/hook-timeout}) or the
   *     operation's
   */
  record HookWaiting(String release, HookPhase phase, ResourceRef ref, Duration timeout)
      implements ReleaseEvent {
    /** Validates the fields. */
    public HookWaiting {
      Objects.requireNonNull(phase, "phase");
      Objects.requireNonNull(ref, "ref");
      Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    public String describe() {
      return "waiting up to "
          + Durations.format(timeout)
          + " for "
          + phase
          + " hook "
          + ref.key()
          + " to complete";
    }
  }

  /**
   * A hook ended.
   *
   * @param outcome how
   */
  record HookFinished(String release, HookOutcome outcome) implements ReleaseEvent {
    @Override
    public String describe() {
      return "hook " + outcome.describe();
    }
  }

  /** An object is about to be written or removed. */
  record Started(String release, ResourceRef ref, Action action) implements ReleaseEvent {
    @Override
    public String describe() {
      return action.id() + " " + ref.key() + " ...";
    }
  }

  /** An object was written or removed. */
  record Done(String release, ResourceRef ref, Action action) implements ReleaseEvent {
    @Override
    public String describe() {
      return action.id() + " " + ref.key() + " done";
    }
  }

  /**
   * A wave of a cast begins: its writes, one group per kind in apply order, then the wait for what
   * it wrote to be healthy. {@link WaveFinished} follows when the wave is healthy; a wave that
   * fails has none (the {@link Failed} and {@link Finished} events follow instead).
   *
   * @param wave the wave's number ({@code capstan.dev/wave}, 0 by default)
   * @param writes how many objects the wave writes
   */
  record WaveStarted(String release, int wave, int writes) implements ReleaseEvent {
    @Override
    public String describe() {
      return "wave " + wave + ": " + writes + " to write";
    }
  }

  /**
   * A wave of a cast is written and healthy.
   *
   * @param wave the wave's number
   * @param duration from its {@link WaveStarted}
   */
  record WaveFinished(String release, int wave, Duration duration) implements ReleaseEvent {
    @Override
    public String describe() {
      return "wave " + wave + " done in " + Durations.format(duration);
    }
  }

  /** Waiting for objects to become healthy. */
  record Verifying(String release, List<ResourceRef> objects, Duration timeout)
      implements ReleaseEvent {
    /** Copies the list. */
    public Verifying {
      objects = List.copyOf(objects);
    }

    @Override
    public String describe() {
      return "waiting up to "
          + Durations.format(timeout)
          + " for "
          + objects.size()
          + " object(s) to be healthy";
    }
  }

  /**
   * Objects waited for are not healthy yet: which, and what each waits for (sent while the wait
   * goes on: first after 5 s, then when that changes, at most every 5 s, and every 30 s while it
   * does not); or a hook's Job or Pod has not completed yet, and what it is doing (first after 5 s,
   * then every 30 s, when the orchestrator can tell).
   *
   * @param progress how long it has waited, and what is pending and why
   */
  record StillWaiting(String release, Readiness.Progress progress) implements ReleaseEvent {
    @Override
    public String describe() {
      return progress.describe();
    }
  }

  /** The objects are healthy. */
  record Verified(String release, int objects) implements ReleaseEvent {
    @Override
    public String describe() {
      return objects + " object(s) healthy";
    }
  }

  /**
   * A write was fenced: the object was not what the plan observed (it appeared since a create was
   * planned, or changed since an update, prune or un-stamp was planned), so nothing was written to
   * it and the operation fails with {@code reason}.
   */
  record Fenced(String release, ResourceRef ref, Action action, String reason)
      implements ReleaseEvent {
    @Override
    public String describe() {
      return "fenced " + action.id() + " " + ref.key() + ": " + reason;
    }
  }

  /** The operation failed; what follows is failure handling. */
  record Failed(String release, String reason) implements ReleaseEvent {
    @Override
    public String describe() {
      return "failed: " + reason;
    }
  }

  /** An atomic revert touched an object. */
  record Reverted(String release, ResourceRef ref, boolean ok, @Nullable String error)
      implements ReleaseEvent {
    @Override
    public String describe() {
      return ok ? "reverted " + ref.key() : "revert of " + ref.key() + " failed: " + error;
    }
  }

  /** Something went wrong that did not fail the operation (e.g. history housekeeping). */
  record Warning(String release, String message) implements ReleaseEvent {
    @Override
    public String describe() {
      return "warning: " + message;
    }
  }

  /**
   * The operation ended, however it ended: the last event of every operation, after its {@link
   * OperationStarted}.
   *
   * @param operation what ran
   * @param outcome how it ended
   * @param revision the revision it recorded, planned or was refused for; 0 when it got none (a
   *     locked release, an invalid input)
   * @param status the status the revision was recorded with last, or {@code null} when the
   *     operation recorded none (a plan, a refusal)
   * @param changes the plan's changes by action (uninstall: the objects deleted as {@code prune}
   *     and kept as {@code retain}); only actions with at least one change, empty when there was no
   *     plan
   * @param writes the object writes and removals that completed ({@link Done} events)
   * @param duration from the call to the return (for a detached cast: to its completion)
   * @param reason why it did not succeed, or {@code null} when it did
   * @param error the exception the operation threw (the caller got it), or {@code null} when it
   *     returned: for a listener that reports it as it is (a trace's exception event); its message
   *     is {@code reason} or says the same, and names objects, never content
   */
  record Finished(
      String release,
      Operation operation,
      Outcome outcome,
      int revision,
      @Nullable ReleaseStatus status,
      Map<Action, Integer> changes,
      int writes,
      Duration duration,
      @Nullable String reason,
      @Nullable Throwable error)
      implements ReleaseEvent {
    /** Keeps only the actions with changes, in action order. */
    public Finished {
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(outcome, "outcome");
      Objects.requireNonNull(duration, "duration");
      Map<Action, Integer> counted = new EnumMap<>(Action.class);
      changes.forEach(
          (action, n) -> {
            if (n > 0) {
              counted.put(action, n);
            }
          });
      changes = Collections.unmodifiableMap(counted);
    }

    /** The end of an operation that returned, or threw {@code reason} without an exception. */
    public Finished(
        String release,
        Operation operation,
        Outcome outcome,
        int revision,
        @Nullable ReleaseStatus status,
        Map<Action, Integer> changes,
        int writes,
        Duration duration,
        @Nullable String reason) {
      this(release, operation, outcome, revision, status, changes, writes, duration, reason, null);
    }

    /**
     * For example {@code cast finished in 1.2s: revision 2 deployed (1 create, 3 unchanged; 1
     * write)} or {@code cast refused in 15ms (conflict): ...}.
     */
    @Override
    public String describe() {
      StringBuilder line = new StringBuilder(operation.id());
      line.append(outcome.refused() ? " refused in " : " finished in ")
          .append(Durations.format(duration));
      if (outcome.refused()) {
        line.append(" (").append(outcome.id()).append(')');
      } else {
        line.append(": ");
        if (revision > 0) {
          line.append("revision ").append(revision).append(' ');
        }
        line.append(
            status != null
                ? status.id()
                : operation == Operation.PLAN && outcome == Outcome.SUCCEEDED
                    ? "planned"
                    : outcome.id());
        StringJoiner counts = new StringJoiner(", ", " (", "; " + writes(writes) + ")");
        changes.forEach((action, n) -> counts.add(n + " " + action.id()));
        line.append(changes.isEmpty() ? " (" + writes(writes) + ")" : counts.toString());
      }
      if (reason != null) {
        line.append(": ").append(reason);
      }
      return line.toString();
    }

    private static String writes(int n) {
      return n == 1 ? "1 write" : n + " writes";
    }
  }
}
