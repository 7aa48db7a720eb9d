package dev.capstan.release;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.Waves;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.plan.Planner;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The release engine: plans, casts, uninstalls and rolls back releases over an {@link Orchestrator}
 * and a {@link Store}. Thread-safe; operations on one release are serialised by its operation
 * lease, across processes too.
 *
 * <pre>{@code
 * ReleaseController c = ReleaseController.builder(orchestrator, store).build();
 * Payloads payloads = Payloads.builder().secret(..).service(..).build();
 * CastResult r = c.cast(ReleaseSpec.of("shop", "web", payloads), payloads);
 * }</pre>
 *
 * <p>A cast: validates the input; plans (conflicts refuse before any write); takes the lease; saves
 * the new revision as {@code PENDING}; applies in dependency order; waits for health; prunes last,
 * in reverse order; saves {@code DEPLOYED} and marks the previous revision {@code SUPERSEDED}. On
 * failure the revision is {@code FAILED} and owns everything the attempt may have created, so
 * nothing is orphaned; with {@code atomic}, the attempt is reverted first.
 */
public final class ReleaseController {
  private final Ports ports;
  private final Store store;
  private final Clock clock;
  private final int maxHistory;
  private final Duration leaseDuration;
  private final ReleaseListener listener;
  private final int parallelism;
  private final String holder;
  private final Supplier<String> ids;

  private ReleaseController(Builder b) {
    this.ports = new Ports(b.orchestrator, b.store);
    this.store = b.store;
    this.clock = b.clock;
    this.maxHistory = b.maxHistory;
    this.leaseDuration = b.leaseDuration;
    this.listener = b.listener;
    this.parallelism = b.parallelism;
    this.holder = b.holder;
    this.ids = b.ids;
  }

  /** A builder over the two ports (one object may implement both, as {@code InMemoryCluster}). */
  public static Builder builder(Orchestrator orchestrator, Store store) {
    return new Builder(orchestrator, store);
  }

  // ------------------------------------------------------------------ read

  /**
   * Computes the plan for {@code spec} without changing anything.
   *
   * @throws ReleaseException if the release is being uninstalled
   * @throws ClusterException if reading the record or the live state fails
   */
  public Plan plan(ReleaseSpec spec) {
    Optional<StoredRelease> stored = store.latestRecord(spec.namespace(), spec.name());
    Release latest = stored.map(StoredRelease::release).orElse(null);
    checkCastable(spec, latest);
    Plan plan = Planner.plan(spec, latest, observe(spec, latest));
    PlanFingerprint fingerprint = requireNonNull(plan.fingerprint());
    plan =
        plan.withFingerprint(
            fingerprint.withRecordVersion(stored.map(StoredRelease::version).orElse(null)));
    emit(new ReleaseEvent.Planned(spec.qualifiedName(), plan));
    return plan;
  }

  /** The latest revision of a release, tombstones included. */
  public Optional<Release> get(String namespace, String name) {
    return latestRelease(namespace, name);
  }

  /** Every recorded revision of a release, newest first (at most {@code maxHistory}). */
  public List<Release> history(String namespace, String name) {
    return store.records(namespace, name).stream().map(StoredRelease::release).toList();
  }

  /**
   * The latest revision of every release in {@code namespace}, by name; uninstalled releases
   * (tombstones) only when {@code includeUninstalled}.
   */
  public List<Release> list(String namespace, boolean includeUninstalled) {
    return store.latestRecords(namespace).stream()
        .map(StoredRelease::release)
        .filter(r -> includeUninstalled || r.status() != ReleaseStatus.UNINSTALLED)
        .toList();
  }

  // ------------------------------------------------------------------ cast

  /**
   * Casts {@code spec} with its rendered {@code payloads}: the new revision is deployed, or the
   * method throws.
   *
   * @return the deployed revision and the plan executed
   * @throws InvalidReleaseException if the payloads do not match the spec; nothing was written
   * @throws ReleaseConflictException if the plan has conflicts; nothing was written
   * @throws ReleaseLockedException if another operation holds the release; nothing was written
   * @throws CastFailedException if the cast started and failed; its result holds the {@code FAILED}
   *     revision
   * @throws ClusterException if a port failed before the cast started
   */
  public CastResult cast(ReleaseSpec spec, Payloads payloads) {
    return cast(spec, payloads, null);
  }

  /**
   * Casts exactly {@code plan}, a plan made by {@link #plan} or {@link #planRollback} and reviewed
   * since: the changes it lists, with the options it was made with, and nothing else. No planner
   * runs and nothing is observed again but what the plan writes or deletes.
   *
   * <p>Before any object is written, after the lease is taken, the record is read again and the
   * objects the plan creates, updates, repairs, adopts, prunes or retains are observed again (one
   * batch per kind and namespace among them; none for a plan that changes nothing): when the record
   * or one of those objects moved since the plan (another revision, a re-created object, a new
   * resourceVersion), the cast is refused, naming each. Objects the plan leaves unchanged are not
   * looked at again: the plan writes nothing to them either way, and the next plan shows their
   * drift. {@code payloads} must be the payloads the plan was computed from: each must hash to the
   * plan's content hash.
   *
   * @param plan the reviewed plan; its {@link Plan#fingerprint()} says what it was computed from
   * @param payloads the payloads it was computed from (a plan holds hashes, never content)
   * @return the deployed revision and the plan executed (this plan)
   * @throws IllegalArgumentException if the plan has no fingerprint (made by hand)
   * @throws InvalidReleaseException if a payload does not hash to the plan's content hash, is
   *     missing or is not in the plan; nothing was written
   * @throws StalePlanException if the record or a planned object moved since the plan; nothing was
   *     written
   * @see #cast(ReleaseSpec, Payloads) for the other outcomes
   */
  public CastResult cast(Plan plan, Payloads payloads) {
    return prepareReviewed(plan, payloads).finish();
  }

  /** Checks a reviewed plan and its payloads, takes the lease, checks the plan is not stale. */
  private Prepared prepareReviewed(Plan plan, Payloads payloads) {
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
    ReleaseSpec spec = fingerprint.spec();
    ReviewedPlans.checkConsistent(plan, spec);
    ReviewedPlans.checkPayloads(spec, payloads);
    PayloadValidator.validate(spec, payloads, ports.orchestrator());
    checkPlan(plan, false);
    createHomeNamespace(spec, plan);

    LeaseKeeper lease =
        LeaseKeeper.acquire(
            store, spec.namespace(), spec.name(), holder, clock, leaseDuration, this::emit);
    try {
      Optional<StoredRelease> now = store.latestRecord(spec.namespace(), spec.name());
      if (now.isPresent() && lease.grant().takenOver() != null) {
        now = Optional.of(failInterrupted(now.get(), lease));
      }
      List<String> moved = new ArrayList<>();
      ReviewedPlans.recordMoved(fingerprint, now).ifPresent(moved::add);
      List<ResourceRef> planned = ReviewedPlans.changing(plan);
      LiveState live = ports.observe(Planner.names(planned));
      moved.addAll(ReviewedPlans.objectsMoved(fingerprint, planned, live));
      if (!moved.isEmpty()) {
        throw new StalePlanException(plan, moved);
      }
      Release latest = now.map(StoredRelease::release).orElse(null);
      return savePending(spec, payloads, plan, live, latest, lease, fingerprint.description());
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    } catch (Error e) {
      lease.abandon();
      throw e;
    }
  }

  /**
   * Casts the payloads recorded in {@code revision} forward as a new revision, with the references
   * and version that revision had.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   * @see #cast(ReleaseSpec, Payloads) for the other outcomes
   */
  public CastResult rollback(String namespace, String name, int revision) {
    return rollback(namespace, name, revision, ReleaseOptions.defaults());
  }

  /**
   * Casts the payloads recorded in {@code revision} forward as a new revision, with the given cast
   * options ({@code atomic}, {@code timeout}, {@code adopt}, ...), as {@link #cast(ReleaseSpec,
   * Payloads)} does with a spec's.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   * @see #cast(ReleaseSpec, Payloads) for the other outcomes
   */
  public CastResult rollback(String namespace, String name, int revision, ReleaseOptions options) {
    requireNonNull(options, "options");
    Release target = revision(namespace, name, revision);
    return cast(rollbackSpec(target, options), target.payloads(), rollbackDescription(revision));
  }

  /**
   * The plan a {@link #rollback} to {@code revision} would execute now; persists nothing.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   */
  public Plan planRollback(String namespace, String name, int revision) {
    return planRollback(namespace, name, revision, ReleaseOptions.defaults());
  }

  /**
   * The plan a {@link #rollback(String, String, int, ReleaseOptions)} to {@code revision} would
   * execute now; persists nothing. To cast exactly this plan once it is reviewed, pass it with that
   * revision's payloads to {@link #cast(Plan, Payloads)}: {@code cast(plan, history(ns,
   * name)...payloads())}; the new revision is described {@code rollback to <revision>}.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   */
  public Plan planRollback(String namespace, String name, int revision, ReleaseOptions options) {
    requireNonNull(options, "options");
    Plan plan = plan(rollbackSpec(revision(namespace, name, revision), options));
    return plan.withFingerprint(
        requireNonNull(plan.fingerprint()).withDescription(rollbackDescription(revision)));
  }

  private static String rollbackDescription(int revision) {
    return "rollback to " + revision;
  }

  private Release revision(String namespace, String name, int revision) {
    return history(namespace, name).stream()
        .filter(r -> r.revision() == revision)
        .findFirst()
        .orElseThrow(() -> new ReleaseNotFoundException(namespace + "/" + name, revision));
  }

  /** Revision {@code target}'s objects and references, as the spec of a new revision. */
  private static ReleaseSpec rollbackSpec(Release target, ReleaseOptions options) {
    List<DesiredResource> resources = new ArrayList<>();
    target
        .payloads()
        .hashes()
        .forEach(
            (ref, h) ->
                resources.add(
                    new DesiredResource(
                        ref, h, Waves.of(target.payloads().get(ref).orElseThrow()))));
    return new ReleaseSpec(
        target.namespace(),
        target.name(),
        resources,
        target.references(),
        options,
        target.source(),
        target.version());
  }

  private CastResult cast(ReleaseSpec spec, Payloads payloads, @Nullable String description) {
    return prepare(spec, payloads, description, false).finish();
  }

  /**
   * Starts a cast and returns once its {@code PENDING} record is saved; the rest (apply, verify,
   * record) runs on {@code executor}. Only plans that create or update are allowed: a plan that
   * prunes must be cast in the foreground, where its outcome is seen before anything is deleted.
   *
   * @return the pending revision, the plan, and the completion of the cast
   * @throws ReleaseException if the plan prunes; nothing was written
   * @see #cast(ReleaseSpec, Payloads) for the other outcomes, which the completion carries
   */
  public DetachedCast castDetached(ReleaseSpec spec, Payloads payloads, Executor executor) {
    requireNonNull(executor, "executor");
    Prepared prepared = prepare(spec, payloads, null, true);
    CompletableFuture<CastResult> completion = new CompletableFuture<>();
    try {
      executor.execute(
          () -> {
            try {
              completion.complete(prepared.finish());
            } catch (RuntimeException | Error e) {
              completion.completeExceptionally(e);
            }
          });
    } catch (RuntimeException e) {
      prepared.abort(e);
      throw e;
    }
    return new DetachedCast(prepared.pending, prepared.plan, completion);
  }

  /**
   * Validates, plans, takes the lease and saves the {@code PENDING} intent record: everything a
   * cast does before its first object write.
   */
  private Prepared prepare(
      ReleaseSpec spec, Payloads payloads, @Nullable String description, boolean detached) {
    PayloadValidator.validate(spec, payloads, ports.orchestrator());
    Optional<StoredRelease> before = store.latestRecord(spec.namespace(), spec.name());
    Release latest = before.map(StoredRelease::release).orElse(null);
    checkCastable(spec, latest);
    LiveState live = observe(spec, latest);
    Plan first = Planner.plan(spec, latest, live);
    if (!first.applyable()) {
      // Another caster may have recorded and written between our two reads: look again once,
      // so it shows up as a held lease rather than as objects of an unknown install.
      Optional<StoredRelease> again = store.latestRecord(spec.namespace(), spec.name());
      if (!sameVersion(before, again)) {
        before = again;
        latest = again.map(StoredRelease::release).orElse(null);
        checkCastable(spec, latest);
        live = observe(spec, latest);
        first = Planner.plan(spec, latest, live);
      }
    }
    Plan plan = checkPlan(first, detached);
    createHomeNamespace(spec, plan);

    LeaseKeeper lease =
        LeaseKeeper.acquire(
            store, spec.namespace(), spec.name(), holder, clock, leaseDuration, this::emit);
    try {
      Optional<StoredRelease> now = store.latestRecord(spec.namespace(), spec.name());
      if (!sameVersion(before, now)) {
        latest = now.map(StoredRelease::release).orElse(null);
        checkCastable(spec, latest);
        live = observe(spec, latest);
        plan = checkPlan(Planner.plan(spec, latest, live), detached);
      }
      if (now.isPresent() && lease.grant().takenOver() != null) {
        latest = failInterrupted(now.get(), lease).release();
      }
      return savePending(spec, payloads, plan, live, latest, lease, description);
    } catch (RuntimeException e) {
      lease.close();
      throw e;
    } catch (Error e) {
      lease.abandon();
      throw e;
    }
  }

  /** Saves the {@code PENDING} intent record of a cast whose lease is held and plan is final. */
  private Prepared savePending(
      ReleaseSpec spec,
      Payloads payloads,
      Plan plan,
      LiveState live,
      @Nullable Release latest,
      LeaseKeeper lease,
      @Nullable String description) {
    String release = spec.qualifiedName();
    Instant at = clock.instant();
    String id = latest == null ? ids.get() : latest.id();
    List<OwnedResource> previousOwns = latest == null ? List.of() : latest.owns();
    List<ResourceRef> previousRetained = latest == null ? List.of() : latest.retained();
    Map<ResourceRef, String> intent = new LinkedHashMap<>();
    previousOwns.forEach(o -> intent.put(o.ref(), o.contentHash()));
    spec.resources().forEach(d -> intent.put(d.ref(), d.contentHash()));
    Release pending =
        new Release(
            id,
            spec.namespace(),
            spec.name(),
            plan.revision(),
            ReleaseStatus.PENDING,
            toOwned(intent),
            spec.references(),
            previousRetained,
            spec.source(),
            spec.version(),
            description,
            payloads,
            null,
            at,
            at,
            lease.grant().lease());
    StoredRelease saved = store.createRecord(pending);
    emit(new ReleaseEvent.RecordSaved(release, plan.revision(), ReleaseStatus.PENDING));
    return new Prepared(
        spec,
        payloads,
        plan,
        live,
        pending,
        saved,
        previousOwns,
        previousRetained,
        lease,
        latest == null ? null : latest.status());
  }

  /**
   * Creates the release's home namespace when the plan creates it: the lease and the records live
   * there, so it must exist before the lease is taken (the executor creates every other namespace).
   */
  private void createHomeNamespace(ReleaseSpec spec, Plan plan) {
    for (PlannedChange c : plan.changes()) {
      if (c.createReference() && c.ref().name().equals(spec.namespace())) {
        emit(new ReleaseEvent.Started(spec.qualifiedName(), c.ref(), c.action()));
        ports.orchestrator().createNamespace(spec.namespace());
        emit(new ReleaseEvent.Done(spec.qualifiedName(), c.ref(), c.action()));
      }
    }
  }

  private Plan checkPlan(Plan plan, boolean detached) {
    emit(new ReleaseEvent.Planned(plan.namespace() + "/" + plan.name(), plan));
    if (!plan.applyable()) {
      throw new ReleaseConflictException(plan);
    }
    if (detached && plan.hasPrune()) {
      throw new ReleaseException(
          "release "
              + plan.namespace()
              + "/"
              + plan.name()
              + ": a detached cast may not prune ("
              + plan.changes(Action.PRUNE).size()
              + " to prune); cast it in the foreground; nothing was written");
    }
    return plan;
  }

  /** A cast whose intent record is saved and whose lease is held: ready to write objects. */
  private final class Prepared {
    final ReleaseSpec spec;
    final Payloads payloads;
    final Plan plan;
    final LiveState live;
    final Release pending;
    final StoredRelease saved;
    final List<OwnedResource> previousOwns;
    final List<ResourceRef> previousRetained;
    final LeaseKeeper lease;
    final @Nullable ReleaseStatus previousStatus;

    Prepared(
        ReleaseSpec spec,
        Payloads payloads,
        Plan plan,
        LiveState live,
        Release pending,
        StoredRelease saved,
        List<OwnedResource> previousOwns,
        List<ResourceRef> previousRetained,
        LeaseKeeper lease,
        @Nullable ReleaseStatus previousStatus) {
      this.spec = spec;
      this.payloads = payloads;
      this.plan = plan;
      this.live = live;
      this.pending = pending;
      this.saved = saved;
      this.previousOwns = previousOwns;
      this.previousRetained = previousRetained;
      this.lease = lease;
      this.previousStatus = previousStatus;
    }

    /** Applies, verifies, prunes and records; gives the lease up at the end. */
    CastResult finish() {
      return lease.run(l -> execute());
    }

    /** Records the failure of a cast that never started writing objects. */
    void abort(RuntimeException cause) {
      lease.run(
          l -> {
            CastExecution none = execution();
            return fail(spec, plan, pending, saved, none, previousOwns, previousRetained, cause);
          });
    }

    private CastExecution execution() {
      return new CastExecution(
          ports,
          plan,
          payloads,
          live,
          pending.identity(),
          parallelism,
          spec.options().timeout(),
          lease,
          ReleaseController.this::emit,
          previousStatus != ReleaseStatus.DEPLOYED);
    }

    private CastResult execute() {
      CastExecution execution = execution();
      Release deployed;
      try {
        execution.run();
        lease.checkHeld();
        deployed =
            pending
                .withStatus(ReleaseStatus.DEPLOYED, clock.instant())
                .withOwns(execution.deployedOwns())
                .withRetained(execution.retainedAfter(previousRetained))
                .withLease(null);
        store.updateRecord(deployed, saved.version());
      } catch (RuntimeException e) {
        throw fail(spec, plan, pending, saved, execution, previousOwns, previousRetained, e);
      }
      String release = spec.qualifiedName();
      emit(new ReleaseEvent.RecordSaved(release, plan.revision(), ReleaseStatus.DEPLOYED));
      housekeeping(spec.namespace(), spec.name(), plan.revision());
      emit(new ReleaseEvent.Finished(release, plan.revision(), ReleaseStatus.DEPLOYED));
      return new CastResult(deployed, plan, CastResult.Revert.NOT_ATTEMPTED);
    }
  }

  private CastFailedException fail(
      ReleaseSpec spec,
      Plan plan,
      Release pending,
      StoredRelease saved,
      CastExecution execution,
      List<OwnedResource> previousOwns,
      List<ResourceRef> previousRetained,
      RuntimeException cause) {
    String reason = cause.getMessage() == null ? cause.toString() : cause.getMessage();
    emit(new ReleaseEvent.Failed(spec.qualifiedName(), reason));
    List<OwnedResource> owns = execution.failedOwns(previousOwns);
    List<ResourceRef> retained = execution.retainedAfter(previousRetained);
    CastResult.Revert revert = CastResult.Revert.NOT_ATTEMPTED;
    if (spec.options().atomic()) {
      List<String> errors = execution.revert();
      if (errors.isEmpty()) {
        owns = previousOwns;
        retained = previousRetained;
        reason = reason + " (atomic: this revision's changes were rolled back)";
        revert = CastResult.Revert.COMPLETE;
      } else {
        reason = reason + "; atomic rollback incomplete: " + String.join("; ", errors);
        revert = CastResult.Revert.INCOMPLETE;
      }
    }
    Release failed =
        pending
            .withStatus(ReleaseStatus.FAILED, clock.instant())
            .withOwns(owns)
            .withRetained(retained)
            .withFailure(reason)
            .withLease(null);
    try {
      store.updateRecord(failed, saved.version());
      emit(
          new ReleaseEvent.RecordSaved(
              spec.qualifiedName(), plan.revision(), ReleaseStatus.FAILED));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
      emit(
          new ReleaseEvent.Warning(
              spec.qualifiedName(),
              "could not record the failure; the revision stays pending until the next cast: "
                  + e.getMessage()));
    }
    emit(new ReleaseEvent.Finished(spec.qualifiedName(), plan.revision(), ReleaseStatus.FAILED));
    return new CastFailedException(new CastResult(failed, plan, revert), cause);
  }

  /** Marks older deployed revisions superseded and trims history; failures only warn. */
  private void housekeeping(String namespace, String name, int revision) {
    try {
      List<StoredRelease> revisions = store.records(namespace, name);
      for (int i = 0; i < revisions.size(); i++) {
        StoredRelease r = revisions.get(i);
        if (r.release().revision() == revision) {
          continue;
        }
        if (i >= maxHistory) {
          store.deleteRecord(namespace, name, r.release().revision());
        } else if (r.release().status() == ReleaseStatus.DEPLOYED) {
          store.updateRecord(
              r.release().withStatus(ReleaseStatus.SUPERSEDED, clock.instant()), r.version());
        }
      }
    } catch (RuntimeException e) {
      emit(
          new ReleaseEvent.Warning(
              namespace + "/" + name,
              "history housekeeping failed (retried by the next cast): " + e.getMessage()));
    }
  }

  /** Records that the holder of an expired lease stopped mid-operation. */
  private StoredRelease failInterrupted(StoredRelease latest, LeaseKeeper lease) {
    Release r = latest.release();
    if (r.status() != ReleaseStatus.PENDING) {
      return latest;
    }
    var old = requireNonNull(lease.grant().takenOver());
    Release failed =
        r.withStatus(ReleaseStatus.FAILED, clock.instant())
            .withFailure(
                "interrupted: the lease of "
                    + old.holder()
                    + " expired at "
                    + old.expiresAt()
                    + " before the cast finished")
            .withLease(null);
    StoredRelease saved = store.updateRecord(failed, latest.version());
    emit(new ReleaseEvent.RecordSaved(r.qualifiedName(), r.revision(), ReleaseStatus.FAILED));
    return saved;
  }

  // ------------------------------------------------------------------ uninstall

  /**
   * Uninstalls a release: deletes what it owns in reverse apply order (Services and Ingresses,
   * workloads, config and storage, RBAC), keeps volume claims whose reclaim policy is {@code
   * Retain} (or all with {@code keepVolumes}) and CRDs (unless {@code deleteCrds}) un-stamped and
   * listed in the record, never touches shared kinds or objects it does not own; then keeps an
   * {@code UNINSTALLED} tombstone, or with {@code purge} deletes every record. Uninstalling an
   * uninstalled release does nothing (or purges it).
   *
   * @throws ReleaseNotFoundException if the release is not recorded
   * @throws ReleaseLockedException if another operation holds it
   * @throws UninstallFailedException if deleting an object failed; run uninstall again to continue
   */
  public UninstallResult uninstall(String namespace, String name, UninstallOptions options) {
    String release = namespace + "/" + name;
    if (store.latestRecord(namespace, name).isEmpty()) {
      throw new ReleaseNotFoundException(release, null);
    }
    return LeaseKeeper.acquire(store, namespace, name, holder, clock, leaseDuration, this::emit)
        .run(lease -> uninstallLeased(namespace, name, options, lease));
  }

  private UninstallResult uninstallLeased(
      String namespace, String name, UninstallOptions options, LeaseKeeper lease) {
    String release = namespace + "/" + name;
    StoredRelease stored =
        store
            .latestRecord(namespace, name)
            .orElseThrow(() -> new ReleaseNotFoundException(release, null));
    if (lease.grant().takenOver() != null) {
      stored = failInterrupted(stored, lease);
    }
    Release latest = stored.release();
    if (latest.status() == ReleaseStatus.UNINSTALLED) {
      if (options.purge()) {
        purge(namespace, name, lease);
        return new UninstallResult(latest, List.of(), List.of(), true);
      }
      return new UninstallResult(latest, List.of(), List.of(), false);
    }
    Release uninstalling =
        latest
            .withStatus(ReleaseStatus.UNINSTALLING, clock.instant())
            .withLease(lease.grant().lease());
    stored = store.updateRecord(uninstalling, stored.version());
    emit(new ReleaseEvent.RecordSaved(release, latest.revision(), ReleaseStatus.UNINSTALLING));

    Map<ResourceRef, String> remaining = new LinkedHashMap<>();
    uninstalling.owns().forEach(o -> remaining.put(o.ref(), o.contentHash()));
    Set<ResourceRef> retained = new TreeSet<>(uninstalling.retained());
    List<ResourceRef> deleted = new ArrayList<>();
    List<ResourceRef> kept = new ArrayList<>();
    LiveState live =
        ports.observe(Planner.names(uninstalling.owns().stream().map(OwnedResource::ref).toList()));
    List<ResourceRef> order =
        uninstalling.owns().stream()
            .map(OwnedResource::ref)
            .sorted(ResourceRef.PRUNE_ORDER)
            .toList();
    for (ResourceRef ref : order) {
      try {
        lease.checkHeld();
        Optional<LiveObject> obj = live.get(ref);
        OwnershipStamp stamp = obj.map(LiveObject::stamp).orElse(null);
        if (stamp != null && stamp.ownedBy(uninstalling.identity())) {
          boolean keep =
              ref.kind().isVolumeClaim()
                  ? options.keepVolumes() || uninstalling.retainsVolume(ref, obj.get().content())
                  : ref.kind().isCrd() && !options.deleteCrds();
          if (keep) {
            emit(new ReleaseEvent.Started(release, ref, Action.RETAIN));
            ports.orchestrator().unstamp(ref, uninstalling.identity());
            retained.add(ref);
            kept.add(ref);
            emit(new ReleaseEvent.Done(release, ref, Action.RETAIN));
          } else {
            emit(new ReleaseEvent.Started(release, ref, Action.PRUNE));
            ports.orchestrator().delete(ref, uninstalling.identity());
            deleted.add(ref);
            emit(new ReleaseEvent.Done(release, ref, Action.PRUNE));
          }
        }
        remaining.remove(ref);
      } catch (RuntimeException e) {
        Release progress =
            uninstalling
                .withOwns(toOwned(remaining))
                .withRetained(List.copyOf(retained))
                .withFailure("uninstall stopped at " + ref.key() + ": " + e.getMessage())
                .withLease(null);
        try {
          store.updateRecord(progress, stored.version());
        } catch (RuntimeException saveError) {
          e.addSuppressed(saveError);
        }
        emit(new ReleaseEvent.Failed(release, e.getMessage() == null ? "" : e.getMessage()));
        throw new UninstallFailedException(progress, ref, e);
      }
    }
    Release tombstone =
        uninstalling
            .withStatus(ReleaseStatus.UNINSTALLED, clock.instant())
            .withOwns(List.of())
            .withRetained(List.copyOf(retained))
            .withFailure(null)
            .withLease(null);
    if (options.purge()) {
      purge(namespace, name, lease);
    } else {
      store.updateRecord(tombstone, stored.version());
      emit(new ReleaseEvent.RecordSaved(release, latest.revision(), ReleaseStatus.UNINSTALLED));
    }
    emit(new ReleaseEvent.Finished(release, latest.revision(), ReleaseStatus.UNINSTALLED));
    return new UninstallResult(tombstone, deleted, kept, options.purge());
  }

  private void purge(String namespace, String name, LeaseKeeper lease) {
    for (StoredRelease r : store.records(namespace, name)) {
      store.deleteRecord(namespace, name, r.release().revision());
    }
    lease.forgetOnClose();
  }

  private static List<OwnedResource> toOwned(Map<ResourceRef, String> owns) {
    return owns.entrySet().stream().map(e -> new OwnedResource(e.getKey(), e.getValue())).toList();
  }

  // ------------------------------------------------------------------ helpers

  private Optional<Release> latestRelease(String namespace, String name) {
    return store.latestRecord(namespace, name).map(StoredRelease::release);
  }

  private static void checkCastable(ReleaseSpec spec, @Nullable Release latest) {
    if (latest != null && latest.status() == ReleaseStatus.UNINSTALLING) {
      throw new ReleaseException(
          "release "
              + spec.qualifiedName()
              + " is being uninstalled (revision "
              + latest.revision()
              + "); run uninstall again to finish it before casting");
    }
  }

  private LiveState observe(ReleaseSpec spec, @Nullable Release latest) {
    return ports.observe(Planner.names(spec, latest));
  }

  private static boolean sameVersion(Optional<StoredRelease> a, Optional<StoredRelease> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return a.isEmpty() && b.isEmpty();
    }
    return a.get().version().equals(b.get().version())
        && a.get().release().revision() == b.get().release().revision();
  }

  private void emit(ReleaseEvent event) {
    try {
      listener.on(event);
    } catch (RuntimeException ignored) {
      // A listener must not break a release operation.
    }
  }

  /** Configures a {@link ReleaseController}. */
  public static final class Builder {
    private final Orchestrator orchestrator;
    private final Store store;
    private Clock clock = Clock.systemUTC();
    private int maxHistory = 10;
    private Duration leaseDuration = Duration.ofMinutes(2);
    private ReleaseListener listener = ReleaseListener.none();
    private int parallelism = 4;
    private String holder =
        "capstan-"
            + ProcessHandle.current().pid()
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    private Supplier<String> ids = () -> UUID.randomUUID().toString();

    private Builder(Orchestrator orchestrator, Store store) {
      this.orchestrator = requireNonNull(orchestrator, "orchestrator");
      this.store = requireNonNull(store, "store");
    }

    /** The clock for timestamps and lease expiry (default: the system UTC clock). */
    public Builder clock(Clock clock) {
      this.clock = requireNonNull(clock, "clock");
      return this;
    }

    /** How many revisions to keep per release, at least 1 (default 10). */
    public Builder maxHistory(int maxHistory) {
      if (maxHistory < 1) {
        throw new IllegalArgumentException("maxHistory must be at least 1: " + maxHistory);
      }
      this.maxHistory = maxHistory;
      return this;
    }

    /**
     * How long the operation lease lasts without renewal, at least one second (default 2 minutes).
     * It is renewed every third of that while an operation runs; a holder that dies blocks others
     * until it lapses.
     */
    public Builder leaseDuration(Duration leaseDuration) {
      requireNonNull(leaseDuration, "leaseDuration");
      if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "leaseDuration must be at least 1 second: " + leaseDuration);
      }
      this.leaseDuration = leaseDuration;
      return this;
    }

    /** Receives progress events (default: none). */
    public Builder listener(ReleaseListener listener) {
      this.listener = requireNonNull(listener, "listener");
      return this;
    }

    /** How many objects of one kind to apply at once, at least 1 (default 4). */
    public Builder parallelism(int parallelism) {
      if (parallelism < 1) {
        throw new IllegalArgumentException("parallelism must be at least 1: " + parallelism);
      }
      this.parallelism = parallelism;
      return this;
    }

    /** The lease holder name shown to others (default: {@code capstan-<pid>-<random>}). */
    public Builder holder(String holder) {
      this.holder = dev.capstan.release.internal.Names.requireText(holder, "holder");
      return this;
    }

    /** Generates release ids for first installs (default: random UUIDs). */
    public Builder ids(Supplier<String> ids) {
      this.ids = requireNonNull(ids, "ids");
      return this;
    }

    /** Builds the controller. */
    public ReleaseController build() {
      return new ReleaseController(this);
    }
  }
}
