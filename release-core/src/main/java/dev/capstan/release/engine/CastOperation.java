package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.event.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.DetachedCast;
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
  private final CastLook looks;
  private final CastCompletion completion;
  private final ReviewedCast reviewed;

  public CastOperation(EngineContext context, HistoryReads reads) {
    this.context = context;
    this.planning = new Planning(context);
    PlanJudge judge = new PlanJudge(context);
    CastIntent intent = new CastIntent(context);
    Housekeeping housekeeping = new Housekeeping(context);
    this.looks = new CastLook(context, planning, housekeeping, judge, intent);
    this.completion = new CastCompletion(context, housekeeping);
    this.reviewed = new ReviewedCast(context, judge, intent, housekeeping, reads);
  }

  /**
   * The plan for {@code spec} (and its payloads, if given), as one {@code PLAN} operation; payloads
   * given are refused as the cast would refuse them ({@link PayloadValidator}), before anyone
   * reviews the plan.
   */
  public Plan plan(ReleaseSpec spec, @Nullable Payloads payloads) {
    return context.operation(
        Operation.PLAN,
        spec.qualifiedName(),
        () -> {
          if (payloads != null) {
            PayloadValidator.validate(
                CastRequest.withHome(spec, context.store), payloads, context.ports.orchestrator());
          }
          return planning.planOnly(spec, payloads);
        });
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
   * Everything a cast does before its first object write: validates ({@link CastRequest}), and
   * prepares it ({@link #prepared}).
   */
  private CastAttempt prepare(
      ReleaseSpec given, Payloads payloads, @Nullable String description, boolean detached) {
    return prepared(
        CastRequest.validated(given, payloads, description, detached, context), null, false);
  }

  /**
   * A cast's first steps for {@code castAll}, which reads many releases together before each
   * prepares: the {@code request} validated, and its {@code lease} when it plans under it ({@code
   * null}: it plans first, {@link EngineContext#castLease}).
   */
  record Begun(CastRequest request, @Nullable LeaseKeeper lease) {}

  /** What {@link #prepared} does before its first read, for {@code castAll}. */
  Begun begin(
      ReleaseSpec given, Payloads payloads, @Nullable String description, boolean detached) {
    CastRequest request = CastRequest.validated(given, payloads, description, detached, context);
    return new Begun(request, context.castLease(request, false));
  }

  /**
   * The cast of {@code request} prepared: one lease stage ({@link EngineContext#castLease}) and one
   * look ({@link CastLook#lookAt}) in turn until a look is made under the lease. A cast takes its
   * lease first unless it plans first; one that looked without a lease then takes it and looks
   * again, under it (planning again only if the record moved). A lease already {@code taken}, or
   * none when {@code leaseTried} ({@code castAll}: {@link #begin}), is where it starts. Planning
   * under the lease needs no second look at the record: nobody else can record meanwhile.
   */
  CastAttempt prepared(CastRequest request, @Nullable LeaseKeeper taken, boolean leaseTried) {
    LeaseKeeper lease = taken;
    Look look = null;
    while (true) {
      if (lease == null && (look != null || !leaseTried)) {
        lease = context.castLease(request, look != null);
      }
      LeaseKeeper held = lease;
      Look first = look;
      look = LeaseKeeper.holdingIfAny(held, () -> looks.lookAt(request, first, held));
      CastAttempt prepared = look.prepared();
      if (prepared != null) {
        return prepared;
      }
    }
  }

  /** Applies, verifies, prunes and records a prepared cast; gives its lease up. */
  CastResult finish(CastAttempt attempt) {
    return completion.finish(attempt);
  }
}
