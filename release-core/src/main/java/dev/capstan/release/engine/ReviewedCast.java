package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.ObservedNames;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The preparation of a reviewed plan's cast ({@code ReleaseController.cast(Plan, Payloads)}): the
 * plan and its payloads checked ({@link ReviewedPlans}), the lease taken, the record and every
 * object the plan owns or references observed again (refused when one moved), the intent record
 * saved. No planner runs.
 */
final class ReviewedCast {
  private final EngineContext context;
  private final PlanJudge judge;
  private final CastIntent intent;
  private final Housekeeping housekeeping;
  private final HistoryReads reads;

  ReviewedCast(
      EngineContext context,
      PlanJudge judge,
      CastIntent intent,
      Housekeeping housekeeping,
      HistoryReads reads) {
    this.context = context;
    this.judge = judge;
    this.intent = intent;
    this.housekeeping = housekeeping;
    this.reads = reads;
  }

  /** Checks a reviewed plan and its payloads, takes the lease, checks the plan is not stale. */
  CastAttempt prepare(Plan plan, Payloads payloads) {
    requireNonNull(plan, "plan");
    requireNonNull(payloads, "payloads");
    PlanFingerprint fingerprint = plan.fingerprint();
    if (fingerprint == null) {
      throw new IllegalArgumentException(
          "plan of release "
              + plan.namespace()
              + "/"
              + plan.name()
              + " has no fingerprint (not made by plan or planRollback), so it cannot be cast");
    }
    // the planned spec holds the effective hashes (Secrets keyed, config readers annotated); the
    // caller's spec holds the payloads' own. A plan from this process carries the release's key; a
    // plan file does not, and the record's is read.
    ReleaseSpec planned = fingerprint.spec();
    ReviewedPlans.checkConsistent(plan, planned);
    List<String> problems = new ArrayList<>();
    ReleaseSpec spec = ReviewedPlans.callerSpec(planned, payloads, problems);
    Release recorded =
        fingerprint.secretHashKey() == null
            ? reads.get(spec.namespace(), spec.name()).orElse(null)
            : null;
    EffectiveRelease effective =
        EffectiveRelease.of(spec, payloads, keyOf(fingerprint, recorded, spec), recorded);
    ReviewedPlans.checkHashes(planned, effective.spec, problems);
    PayloadValidator.validate(spec, payloads, context.ports.orchestrator());
    judge.check(plan, false);
    judge.createHomeNamespace(spec, plan, payloads);

    CastRequest request = new CastRequest(spec, payloads, fingerprint.description(), false);
    LeaseKeeper lease = context.acquireCastLease(spec);
    return lease.holding(
        held -> {
          LeasedRecords read = housekeeping.readUnderLease(spec.namespace(), spec.name(), lease);
          List<RecordEntry> records = read.records();
          Optional<StoredRelease> now = read.latest();
          Planning.checkNotEmpty(planned, now.map(StoredRelease::release).orElse(null));
          List<String> moved = new ArrayList<>();
          ReviewedPlans.recordMoved(fingerprint, now).ifPresent(moved::add);
          // the lease (a Kubernetes Lease lives in the namespace), or a record read from it,
          // proves the release's home namespace
          boolean homeProven =
              lease.grant().namespaceExists()
                  || (context.store.recordsInNamespace() && now.isPresent());
          List<ResourceRef> looked = ReviewedPlans.looked(plan, homeProven);
          LiveState live =
              context.ports.observe(
                  ObservedNames.of(looked), now.map(StoredRelease::release).orElse(null));
          moved.addAll(ReviewedPlans.objectsMoved(fingerprint, plan, looked, live));
          if (!moved.isEmpty()) {
            throw new StalePlanException(plan, moved);
          }
          // a plan made from the spec alone could not check its CRD changes; with the payloads
          // and the objects it writes observed again, the gate can, before any write
          Plan gated =
              ServerVerification.verifyIfAsked(
                  CrdSafety.gate(
                      plan,
                      live,
                      effective.applied,
                      planned.options(),
                      context.ports.orchestrator()),
                  live,
                  effective,
                  context.ports.orchestrator(),
                  context::emit,
                  context.parallelism,
                  true);
          if (!gated.applyable()) {
            throw new ReleaseConflictException(gated);
          }
          Release latest = now.map(StoredRelease::release).orElse(null);
          // a reviewed rollback runs the rollback hooks of what it casts
          Plan hooked =
              request.rollback()
                  ? plan.withHooks(HookStage.planned(effective.objects, latest, true))
                  : plan;
          return intent.savePending(
              request, new Planned(latest, effective, live, hooked), lease, records);
        });
  }

  /**
   * The key a reviewed plan's Secret hashes were keyed with: the one the plan carries from its
   * process, else the record's. A plan file carries none, so a plan file of a release that has no
   * key yet (its first cast) cannot vouch for Secrets.
   */
  private static SecretHashKey keyOf(
      PlanFingerprint fingerprint, @Nullable Release latest, ReleaseSpec spec) {
    SecretHashKey carried = fingerprint.secretHashKey();
    SecretHashKey recorded = latest == null ? null : latest.secretHashKey();
    if (carried != null) {
      return carried;
    }
    if (recorded != null) {
      return recorded;
    }
    List<String> secrets =
        spec.resources().stream()
            .map(DesiredResource::ref)
            .filter(ref -> ref.kind().equals(Kind.SECRET))
            .map(ref -> "payloads[" + ref.key() + "]")
            .toList();
    if (!secrets.isEmpty()) {
      throw new InvalidReleaseException(
          spec.qualifiedName(),
          secrets.stream()
              .map(
                  at ->
                      at
                          + ": a plan file of a release without a recorded Secret-hash key (its"
                          + " first cast) cannot vouch for Secrets; cast with confirmation instead"
                          + " (release cast -f), or plan again once the release is recorded")
              .toList());
    }
    return SecretHashKey.generate();
  }
}
