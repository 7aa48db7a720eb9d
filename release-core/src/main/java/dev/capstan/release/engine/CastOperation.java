package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.DetachedCast;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Plans and casts: a plain cast, a reviewed plan's cast ({@link ReviewedCast}), and a detached cast
 * that returns once its intent record is saved. Each public method is one operation with its events
 * (ARCHITECTURE.md, "Cast, uninstall, rollback"); a cast is carried through its stages as a {@link
 * CastAttempt} and finished by {@link CastCompletion}.
 */
public final class CastOperation {
  private final EngineContext context;
  private final Planning planning;
  private final CastIntent intent;
  private final Housekeeping housekeeping;
  private final CastCompletion completion;
  private final ReviewedCast reviewed;

  public CastOperation(EngineContext context, HistoryReads reads) {
    this.context = context;
    this.planning = new Planning(context);
    this.intent = new CastIntent(context);
    this.housekeeping = new Housekeeping(context);
    this.completion = new CastCompletion(context, housekeeping);
    this.reviewed = new ReviewedCast(context, intent, housekeeping, reads);
  }

  /** The plan for {@code spec} (and its payloads, if given), as one {@code PLAN} operation. */
  public Plan plan(ReleaseSpec spec, @Nullable Payloads payloads) {
    return context.operation(
        Operation.PLAN, spec.qualifiedName(), () -> planning.planOnly(spec, payloads));
  }

  /** The plan for {@code spec} with field-level diffs, as one {@code PLAN} operation. */
  public Plan planWithDiff(ReleaseSpec spec, Payloads payloads) {
    return context.operation(
        Operation.PLAN, spec.qualifiedName(), () -> planning.planWithDiffOnly(spec, payloads));
  }

  /** Casts {@code spec} with its payloads, as one {@code CAST} operation. */
  public CastResult cast(ReleaseSpec spec, Payloads payloads) {
    return context.operation(
        Operation.CAST, spec.qualifiedName(), () -> castWithin(spec, payloads, null));
  }

  /**
   * Casts exactly the reviewed {@code plan}, as one {@code CAST} operation, stopping once {@code
   * superseded} answers {@code true} ({@link CastCompletion#finish(CastAttempt, BooleanSupplier)}).
   */
  public CastResult castReviewed(Plan plan, Payloads payloads, BooleanSupplier superseded) {
    requireNonNull(plan, "plan");
    requireNonNull(superseded, "superseded");
    return context.operation(
        Operation.CAST,
        plan.namespace() + "/" + plan.name(),
        () -> completion.finish(reviewed.prepare(plan, payloads), superseded));
  }

  /** Casts {@code spec} within the operation running on this thread (a rollback's). */
  CastResult castWithin(ReleaseSpec spec, Payloads payloads, @Nullable String description) {
    return completion.finish(prepare(spec, payloads, description, false));
  }

  /**
   * Starts a cast and returns once its {@code PENDING} record is saved; the rest runs on {@code
   * executor}, where the operation finishes.
   */
  public DetachedCast castDetached(ReleaseSpec spec, Payloads payloads, Executor executor) {
    requireNonNull(executor, "executor");
    // one operation on two threads: it finishes when the cast completes, on the executor's thread
    OperationScope scope = context.begin(spec.qualifiedName(), Operation.CAST);
    return context.within(
        scope,
        () -> {
          CastAttempt prepared = prepare(spec, payloads, null, true);
          CompletableFuture<CastResult> done = new CompletableFuture<>();
          try {
            executor.execute(
                () -> {
                  try {
                    done.complete(context.within(scope, () -> completion.finish(prepared), true));
                  } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                  }
                });
          } catch (RuntimeException e) {
            completion.abort(prepared, e);
            throw e;
          }
          return new DetachedCast(prepared.pendingRecord(), prepared.plan(), done);
        },
        false);
  }

  /**
   * Validates, takes the lease, reads the record once, plans under the lease and saves the {@code
   * PENDING} intent record: everything a cast does before its first object write. Planning under
   * the lease needs no second look at the record (nobody else can record meanwhile). A detached
   * cast (refused before any write, lease included, when its plan prunes), a release that may
   * create its home namespace, and a release whose lease cannot be taken because its namespace does
   * not exist (404: the plan then reports the missing namespace) plan first and then take the lease
   * ({@link #prepared}).
   */
  private CastAttempt prepare(
      ReleaseSpec given, Payloads payloads, @Nullable String description, boolean detached) {
    Begun begun = begin(given, payloads, description, detached);
    return prepared(begun.attempt(), begun.lease());
  }

  /**
   * A cast's first steps done ({@link #begin}): its attempt, and its lease when it plans under it
   * ({@code null}: it plans first, {@link #prepared}).
   */
  record Begun(CastAttempt attempt, @Nullable LeaseKeeper lease) {}

  /** What {@link #prepare} does before its first read: validates, and takes the lease. */
  Begun begin(
      ReleaseSpec given, Payloads payloads, @Nullable String description, boolean detached) {
    ReleaseSpec spec = planning.withHome(given);
    PayloadValidator.validate(spec, payloads, context.ports.orchestrator());
    CastAttempt attempt = CastAttempt.start(spec, payloads, description, detached);
    if (detached
        || spec.options().createNamespace()
        || (spec.resources().isEmpty() && !spec.options().dangerousAllowEmpty())) {
      // an empty spec is checked against the record before the lease is taken: refused, it writes
      // nothing at all
      return new Begun(attempt, null);
    }
    try {
      return new Begun(attempt, context.acquireCastLease(spec));
    } catch (ClusterException e) {
      if (e.status() != 404) {
        throw e;
      }
      return new Begun(attempt, null);
    }
  }

  /**
   * A begun cast ({@link #begin}: its {@code attempt}, and the lease {@code taken}, or {@code
   * null}) prepared, one stage after the other: without a lease yet, it plans first ({@link
   * #lookFirst}) and then takes the lease; under the lease it reads the records (recording what a
   * holder whose expired lease it took over left unfinished), plans, or plans again if the record
   * moved since it looked first, and saves the intent ({@link #underLease}).
   */
  CastAttempt prepared(CastAttempt attempt, @Nullable LeaseKeeper taken) {
    FirstLook first = taken == null ? lookFirst(attempt) : null;
    LeaseKeeper lease = taken == null ? context.acquireCastLease(attempt.spec()) : taken;
    return lease.holding(held -> underLease(attempt, first, held));
  }

  /**
   * What a cast that plans before its lease found: the plan over {@code record} (its checks {@code
   * deferred} to the lease when a held lease may explain its conflicts), and the key {@code fresh}
   * its new Secret hashes were keyed with.
   */
  private record FirstLook(
      Planned planned, Optional<StoredRelease> record, SecretHashKey fresh, boolean deferred) {}

  /**
   * The plan before the lease: the record read, planned over, and looked at again once if the plan
   * has conflicts and the record moved ({@link Planning#lookBefore}); the plan judged ({@link
   * CastIntent#judgePlan}) unless a held lease may explain its conflicts.
   */
  private FirstLook lookFirst(CastAttempt attempt) {
    ReleaseSpec spec = attempt.spec();
    SecretHashKey fresh = SecretHashKey.generate();
    Planning.Looked looked =
        planning.lookBefore(spec, attempt.payloads(), fresh, attempt.rollback());
    Planned first = looked.planned();
    // A held lease may explain the conflicts: a cast under way, or one that died before it
    // recorded anything, whose objects carry an id no record names yet. Its lease is then waited
    // for (or taken over, recording what it left), and the plan judged again under it.
    boolean deferred =
        !first.plan().applyable()
            && context.store.heldLease(spec.namespace(), spec.name()).isPresent();
    return new FirstLook(
        deferred ? first : intent.judgePlan(attempt, first), looked.record(), fresh, deferred);
  }

  /**
   * Under the lease: reads the records and records what a holder whose lease was taken over left
   * unfinished ({@link Housekeeping#readUnderLease}); plans over the latest ({@link
   * Planning#lookUnderLease}, keyed as the {@code first} look was, if any) and judges that plan
   * ({@link CastIntent#judgePlan}) when the cast did not plan {@code first} or the record moved
   * since, else keeps the first plan (judging it now if that was deferred to here); and saves the
   * new revision pending ({@link CastIntent#savePending}).
   */
  private CastAttempt underLease(
      CastAttempt attempt, @Nullable FirstLook first, LeaseKeeper lease) {
    ReleaseSpec spec = attempt.spec();
    Housekeeping.UnderLease read =
        housekeeping.readUnderLease(spec.namespace(), spec.name(), lease);
    Optional<StoredRelease> now = read.latest();
    boolean pendingFailed =
        first != null
            && !now.equals(read.read())
            && read.read().isPresent()
            && read.read().get().release().status() == ReleaseStatus.PENDING;
    boolean moved =
        first != null
            && !StoredRelease.sameVersion(first.record(), pendingFailed ? read.read() : now);
    Planned last;
    if (first == null || moved) {
      last =
          planning.lookUnderLease(
              attempt.spec(),
              attempt.payloads(),
              now,
              first == null ? null : first.fresh(),
              lease.grant(),
              attempt.rollback());
    } else if (pendingFailed) {
      // a taken-over pending revision recorded failed: the plan made on it stands
      last = first.planned().over(now.get().release());
    } else {
      last = first.planned();
    }
    if (first == null || moved || first.deferred()) {
      last = intent.judgePlan(attempt, last); // a plan not judged yet
    }
    return intent.savePending(attempt, last, lease, read.records());
  }

  /** Applies, verifies, prunes and records a prepared cast; gives its lease up. */
  CastResult finish(CastAttempt attempt) {
    return completion.finish(attempt);
  }
}
