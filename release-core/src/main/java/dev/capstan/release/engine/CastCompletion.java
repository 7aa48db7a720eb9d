package dev.capstan.release.engine;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The write and record stages of a cast whose intent record is saved and whose lease is held:
 * applies, verifies and prunes ({@link CastExecution}), then records {@code DEPLOYED} (and
 * housekeeping) or {@code FAILED} (after an atomic revert), and gives the lease up.
 */
final class CastCompletion {
  private final EngineContext context;
  private final Housekeeping housekeeping;

  CastCompletion(EngineContext context, Housekeeping housekeeping) {
    this.context = context;
    this.housekeeping = housekeeping;
  }

  /** Applies, verifies, prunes and records; gives the lease up at the end. */
  CastResult finish(CastAttempt attempt) {
    return finish(attempt, () -> false);
  }

  /**
   * Applies, verifies, prunes and records as {@link #finish(CastAttempt)} does, stopping once
   * {@code superseded} answers {@code true} or an operation waiting for the lease asked this one to
   * yield it ({@link LeaseYield}): the health wait ends at its next check, no later wave is
   * written, and the revision is recorded {@code FAILED} as superseded ({@link CastExecution}).
   */
  CastResult finish(CastAttempt attempt, BooleanSupplier superseded) {
    try (LeaseYield yield = attempt.lease().yieldRequests()) {
      return attempt
          .lease()
          .run(l -> execute(attempt, () -> superseded.getAsBoolean() || yield.asked()));
    }
  }

  /** Records the failure of a cast that never started writing objects. */
  void abort(CastAttempt attempt, RuntimeException cause) {
    attempt.lease().run(l -> fail(attempt, execution(attempt, () -> false), cause));
  }

  private CastExecution execution(CastAttempt attempt, BooleanSupplier superseded) {
    ReleaseSpec spec = attempt.effective().spec;
    return new CastExecution(
        context.ports,
        attempt.plan(),
        attempt.effective().objects,
        attempt.live(),
        attempt.pendingRecord().identity(),
        context.parallelism,
        context.deleteParallelism,
        spec.options(),
        attempt.lease(),
        context.events(),
        attempt.previousStatus() != ReleaseStatus.DEPLOYED,
        new HookStage(
            context.ports.orchestrator(),
            attempt.pendingRecord().identity(),
            context.clock,
            spec.options().timeout(),
            HookAdvice.cast(attempt.description()),
            attempt.lease()::checkHeld,
            context.events()),
        superseded);
  }

  private CastResult execute(CastAttempt attempt, BooleanSupplier superseded) {
    CastExecution execution = execution(attempt, superseded);
    Plan plan = attempt.plan();
    Release deployed;
    try {
      execution.run();
      attempt.lease().checkHeld();
      deployed =
          attempt
              .pendingRecord()
              .withStatus(ReleaseStatus.DEPLOYED, context.clock.instant())
              .withOwns(execution.deployedOwns())
              .withRetained(
                  execution.retainedAfter(attempt.previousRetained()),
                  execution.retainedUidsAfter(attempt.previousRetainedUids()))
              .withHooks(execution.hookOutcomes())
              .withLease(null);
      saveOutcome(deployed, attempt.saved());
    } catch (RuntimeException e) {
      throw fail(attempt, execution, e);
    }
    ReleaseSpec spec = attempt.effective().spec;
    context.emit(
        new ReleaseEvent.RecordSaved(
            spec.qualifiedName(), plan.revision(), ReleaseStatus.DEPLOYED));
    housekeeping.afterCast(spec.namespace(), spec.name(), plan.revision(), attempt.records());
    return new CastResult(deployed, plan, CastResult.Revert.NOT_ATTEMPTED);
  }

  private CastFailedException fail(
      CastAttempt attempt, CastExecution execution, RuntimeException cause) {
    ReleaseSpec spec = attempt.effective().spec;
    List<OwnedResource> previousOwns = attempt.previousOwns();
    List<ResourceRef> previousRetained = attempt.previousRetained();
    String reason = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    context.emit(new ReleaseEvent.Failed(spec.qualifiedName(), reason));
    List<OwnedResource> owns = execution.failedOwns(previousOwns);
    List<ResourceRef> retained = execution.retainedAfter(previousRetained);
    List<RetainedUid> retainedUids = execution.retainedUidsAfter(attempt.previousRetainedUids());
    CastResult.Revert revert = CastResult.Revert.NOT_ATTEMPTED;
    if (spec.options().atomic()) {
      List<String> errors = execution.revert();
      if (errors.isEmpty()) {
        owns = previousOwns;
        retained = previousRetained;
        retainedUids = attempt.previousRetainedUids();
        reason = reason + " (atomic: this revision's changes were rolled back)";
        revert = CastResult.Revert.COMPLETE;
      } else {
        reason = reason + "; atomic rollback incomplete: " + String.join("; ", errors);
        revert = CastResult.Revert.INCOMPLETE;
      }
    }
    Release failed =
        attempt
            .pendingRecord()
            .withStatus(ReleaseStatus.FAILED, context.clock.instant())
            .withOwns(owns)
            .withRetained(retained, retainedUids)
            .withFailure(reason)
            .withHooks(execution.hookOutcomes())
            .withLease(null);
    // recorded on an interrupted thread too: an interrupt stops a cast before its next write
    Recorded outcome = Uninterrupted.get(() -> recordFailure(attempt, failed, cause));
    Release recorded = outcome.release();
    if (outcome.saved()) {
      Release before = attempt.latest();
      int replaced =
          before != null
                  && before.status() == ReleaseStatus.FAILED
                  && before.payloads().equals(failed.payloads())
                  && before.withheldSecrets().equals(failed.withheldSecrets())
              ? before.revision()
              : -1;
      Uninterrupted.run(
          () ->
              housekeeping.afterFailure(
                  spec.namespace(), spec.name(), failed.revision(), attempt.records(), replaced));
    }
    return new CastFailedException(new CastResult(recorded, attempt.plan(), revert), cause);
  }

  /**
   * Records {@code failed} over the cast's pending record (or as a new one while the cast still
   * holds the lease), and returns what is recorded: {@code failed} (saved), or the revision as the
   * lease's new holder already recorded it failed (or {@code failed}, unsaved, when it did not). A
   * failure to record is added to {@code cause}.
   */
  private Recorded recordFailure(CastAttempt attempt, Release failed, RuntimeException cause) {
    ReleaseSpec spec = attempt.effective().spec;
    Plan plan = attempt.plan();
    StoredRelease saved = attempt.saved();
    try {
      if (saved == null) {
        // no pending record: the revision is recorded only while this cast still holds the lease
        // (interrupted or not: its lease may name objects it wrote)
        try {
          attempt.lease().checkNotLost();
        } catch (ReleaseException lost) {
          return new Recorded(recordedByNewHolder(attempt, failed, cause, lost), false);
        }
      }
      saveOutcome(failed, saved);
      context.emit(
          new ReleaseEvent.RecordSaved(
              spec.qualifiedName(), plan.revision(), ReleaseStatus.FAILED));
    } catch (StaleRecordException e) {
      return new Recorded(recordedByNewHolder(attempt, failed, cause, e), false);
    } catch (RuntimeException e) {
      unrecorded(attempt, cause, e);
      return new Recorded(failed, false);
    }
    return new Recorded(failed, true);
  }

  /** What a failed cast's record is, and whether this cast saved it. */
  private record Recorded(Release release, boolean saved) {}

  /**
   * The lease was taken over meanwhile: returns this attempt's revision as the new holder recorded
   * it failed, or {@code failed} (unrecorded) when it did not.
   */
  private Release recordedByNewHolder(
      CastAttempt attempt, Release failed, RuntimeException cause, RuntimeException e) {
    ReleaseSpec spec = attempt.effective().spec;
    Release now = recordedRevision(attempt.pendingRecord()).orElse(null);
    if (now != null && now.status() == ReleaseStatus.FAILED) {
      context.emit(
          new ReleaseEvent.Warning(
              spec.qualifiedName(),
              "revision "
                  + attempt.plan().revision()
                  + " was already recorded failed by the lease's new holder: "
                  + now.failure()));
      return now;
    }
    unrecorded(attempt, cause, e);
    return failed;
  }

  /**
   * The failure could not be recorded ({@code e}): the lease keeps the cast's intent (or its {@code
   * PENDING} record stays), and the next cast records the attempt failed when it takes the lease
   * over ({@link Takeover#recover}). Nothing the cast wrote is forgotten.
   */
  private void unrecorded(CastAttempt attempt, RuntimeException cause, RuntimeException e) {
    cause.addSuppressed(e);
    attempt.lease().keepIntent();
    context.emit(
        new ReleaseEvent.Warning(
            attempt.effective().spec.qualifiedName(),
            "could not record the failure of revision "
                + attempt.plan().revision()
                + " ("
                + e.getMessage()
                + "); its lease keeps what it wrote, and the next cast records it failed"));
  }

  /** Records a cast's outcome: over its pending record, or as a new record when it has none. */
  private void saveOutcome(Release outcome, @Nullable StoredRelease pending) {
    if (pending == null) {
      context.store.createRecord(outcome);
    } else {
      context.store.updateRecord(outcome, pending.version());
    }
  }

  /** The stored state of {@code r}'s revision, if it can be read: that revision's record alone. */
  private Optional<Release> recordedRevision(Release r) {
    try {
      return context.store.recordEntries(r.namespace(), r.name()).stream()
          .filter(e -> e.revision() == r.revision())
          .findFirst()
          .map(e -> e.stored().release());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
