package dev.capstan.release;

import dev.capstan.common.ClusterException;
import dev.capstan.release.engine.CastOperation;
import dev.capstan.release.engine.EngineContext;
import dev.capstan.release.engine.FleetCast;
import dev.capstan.release.engine.FleetUninstall;
import dev.capstan.release.engine.HistoryReads;
import dev.capstan.release.engine.RollbackOperation;
import dev.capstan.release.engine.TestOperation;
import dev.capstan.release.engine.UninstallOperation;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.release.result.CastOutcome;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.DetachedCast;
import dev.capstan.release.result.OperationInProgress;
import dev.capstan.release.result.ReleaseListing;
import dev.capstan.release.result.TestResult;
import dev.capstan.release.result.UninstallOutcome;
import dev.capstan.release.result.UninstallResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The release engine: plans, casts, uninstalls and rolls back releases over an {@link Orchestrator}
 * and a {@link Store}. Thread-safe; operations on one release are serialised by its operation
 * lease, across processes too.
 *
 * <pre>{@code
 * ReleaseController c = ReleaseController.builder(orchestrator, store).build();
 * Payloads payloads = Payloads.builder().secret(..).service(..).build();
 * ReleaseInput web = ReleaseInput.of("shop", "web", payloads);
 * Plan p = c.plan(web);        // what the cast would do; changes nothing
 * CastResult r = c.cast(web);  // the new revision, deployed
 * }</pre>
 *
 * <p>A cast is one forward sequence of stages: validate, lease, observe, plan (conflicts and the
 * checks on the plan refuse before any write), pre-hooks, waves (apply, then health), post-hooks,
 * prune, record {@code DEPLOYED} (ARCHITECTURE.md, "The cast's stages"). On failure the revision is
 * {@code FAILED} and owns everything the attempt may have created; with {@code atomic}, the attempt
 * is reverted first.
 *
 * <p>Interrupting the thread an operation runs on stops it at its next safe point, no write
 * starting after it, and unwinds as after a failed write, the interrupt status left set
 * (ARCHITECTURE.md, "Leases and retries", "The CLI daemon").
 *
 * <p>Each operation is carried out by a class of the internal package {@code
 * dev.capstan.release.engine} (ARCHITECTURE.md, "The release engine").
 */
public final class ReleaseController {
  private final HistoryReads reads;
  private final CastOperation casts;
  private final RollbackOperation rollbacks;
  private final UninstallOperation uninstalls;
  private final TestOperation tests;
  private final FleetCast fleet;
  private final FleetUninstall fleetUninstalls;

  /** The operations, each over {@code context}, the engine the builder assembled. */
  ReleaseController(EngineContext context) {
    this.reads = new HistoryReads(context);
    this.casts = new CastOperation(context, reads);
    this.rollbacks = new RollbackOperation(context, reads, casts);
    this.uninstalls = new UninstallOperation(context);
    this.tests = new TestOperation(context);
    this.fleet = new FleetCast(context, casts);
    this.fleetUninstalls = new FleetUninstall(context, uninstalls);
  }

  /** A builder over the two ports (one object may implement both, as {@code InMemoryCluster}). */
  public static ReleaseControllerBuilder builder(Orchestrator orchestrator, Store store) {
    return new ReleaseControllerBuilder(orchestrator, store);
  }

  /**
   * The plan {@link #cast(ReleaseInput)} would execute for {@code release} now, computed without
   * changing anything: the same planner over the same payloads, config rollouts included
   * (ARCHITECTURE.md, "Config rollouts"), so what it shows is what the cast does unless the record
   * or the cluster moves meanwhile. To cast exactly this plan once a person has reviewed it, pass
   * it to {@link #cast(Plan, Payloads)}.
   *
   * @throws InvalidReleaseException if the payloads would be refused by the cast (they do not match
   *     the spec, or break the API server's limits); nothing was written
   * @throws ReleaseException if the release is being uninstalled
   * @throws ClusterException if reading the record or the live state fails
   */
  public Plan plan(ReleaseInput release) {
    return casts.plan(release.spec(), release.payloads());
  }

  /**
   * The plan from {@code spec}'s content hashes alone, without its payloads, computed without
   * changing anything. What differs from {@link #plan(ReleaseInput)}: a workload that reads a
   * ConfigMap or Secret of the release carries a hash of that config, which only the payloads tell;
   * here it is taken from the latest record when that holds the workload at the same content, and
   * otherwise the workload plans as an update the cast may not make. For hosts that keep specs
   * without their content; with payloads at hand, use {@link #plan(ReleaseInput)}.
   *
   * @throws ReleaseException if the release is being uninstalled
   * @throws ClusterException if reading the record or the live state fails
   */
  public Plan planFromHashes(ReleaseSpec spec) {
    return casts.plan(spec, null);
  }

  /**
   * The plan for {@code spec} without its payloads, as {@link #planFromHashes(ReleaseSpec)}
   * computes it.
   *
   * @deprecated the plan a cast makes is {@link #plan(ReleaseInput)}, which has the payloads; a
   *     plan from the spec's hashes alone, which can differ from it, is {@link
   *     #planFromHashes(ReleaseSpec)}
   */
  @Deprecated
  public Plan plan(ReleaseSpec spec) {
    return plan(spec, null);
  }

  /**
   * The plan for {@code spec} with its {@code payloads} as {@link #plan(ReleaseInput)} computes it,
   * or without them ({@code null}) as {@link #planFromHashes(ReleaseSpec)} does.
   *
   * @deprecated {@code plan(new ReleaseInput(spec, payloads))} ({@link #plan(ReleaseInput)}), or
   *     without payloads {@link #planFromHashes(ReleaseSpec)}
   */
  @Deprecated
  public Plan plan(ReleaseSpec spec, @Nullable Payloads payloads) {
    return casts.plan(spec, payloads);
  }

  /**
   * The plan for {@code spec} and its {@code payloads} with field-level diffs, as {@link
   * #planWithDiff(ReleaseInput)} computes it.
   *
   * @deprecated {@code planWithDiff(new ReleaseInput(spec, payloads))} ({@link
   *     #planWithDiff(ReleaseInput)}): the payloads are given once
   */
  @Deprecated
  public Plan planWithDiff(ReleaseSpec spec, Payloads payloads) {
    return casts.planWithDiff(spec, payloads);
  }

  /**
   * {@link #plan(ReleaseInput)} with a field-level diff on every update, repair and adoption
   * ({@link PlannedChange#diff()}): the live object against what the cluster would store after the
   * apply (on Kubernetes a server-side apply dry run per such object, none for the other changes).
   *
   * @throws InvalidReleaseException if the payloads do not match the spec; nothing was written
   * @throws ReleaseException if the release is being uninstalled
   * @throws ClusterException if reading the record or the live state, or a dry run, fails
   */
  public Plan planWithDiff(ReleaseInput release) {
    return casts.planWithDiff(release.spec(), release.payloads());
  }

  /** The latest revision of a release, tombstones included. */
  public Optional<Release> get(String namespace, String name) {
    return reads.get(namespace, name);
  }

  /**
   * What holds the release's operation lease now, if anything: who, since and until when, and what
   * it does when the store keeps lease intents (where a cast in progress shows; an expired one is
   * an operation whose holder stopped). Empty when nobody holds it, and over a store that cannot
   * tell ({@link dev.capstan.release.port.Store#heldLease}).
   */
  public Optional<OperationInProgress> inProgress(String namespace, String name) {
    return reads.inProgress(namespace, name);
  }

  /** Every recorded revision of a release, newest first (at most {@code maxHistory}). */
  public List<Release> history(String namespace, String name) {
    return reads.history(namespace, name);
  }

  /**
   * The latest revision of every release in {@code namespace} that can be read, by name;
   * uninstalled releases (tombstones) only when {@code includeUninstalled}. A release whose record
   * cannot be read is left out: {@link #listing} shows it, with how to recover.
   */
  public List<Release> list(String namespace, boolean includeUninstalled) {
    return reads.list(namespace, includeUninstalled);
  }

  /**
   * Every release in {@code namespace}, by name: its latest revision ({@link
   * ReleaseListing.Recorded}), or, when that revision's record cannot be read, the revision and
   * why, with the record to delete to recover ({@link ReleaseListing.Unreadable}). One corrupt
   * record fails only its own release; {@code get}, {@code history} and casts of that release fail
   * with the same advice. Tombstones only when {@code includeUninstalled}.
   */
  public List<ReleaseListing> listing(String namespace, boolean includeUninstalled) {
    return reads.listing(namespace, includeUninstalled);
  }

  /**
   * The latest revision of every release in every namespace that can be read, by namespace, then
   * name; tombstones only when {@code includeUninstalled}. A release whose record cannot be read is
   * left out: {@link #listingInAllNamespaces} shows it, with how to recover. One read ({@link
   * dev.capstan.release.port.Store#latestEntriesInAllNamespaces}).
   *
   * @throws UnsupportedOperationException if the store cannot read every namespace at once
   */
  public List<Release> listInAllNamespaces(boolean includeUninstalled) {
    return reads.listInAllNamespaces(includeUninstalled);
  }

  /**
   * Every release in every namespace, by namespace, then name, as {@link #listing} gives one
   * namespace's: a release whose record cannot be read, in any namespace, is listed as {@link
   * ReleaseListing.Unreadable} beside the others. One read ({@link
   * dev.capstan.release.port.Store#latestEntriesInAllNamespaces}).
   *
   * @throws UnsupportedOperationException if the store cannot read every namespace at once
   */
  public List<ReleaseListing> listingInAllNamespaces(boolean includeUninstalled) {
    return reads.listingInAllNamespaces(includeUninstalled);
  }

  /**
   * Casts {@code spec} with its rendered {@code payloads}, as {@link #cast(ReleaseInput)} does.
   *
   * @deprecated {@code cast(ReleaseInput.of(namespace, name, payloads))}, or {@code cast(new
   *     ReleaseInput(spec, payloads))} ({@link #cast(ReleaseInput)}): the payloads are given once
   */
  @Deprecated
  public CastResult cast(ReleaseSpec spec, Payloads payloads) {
    return casts.cast(spec, payloads);
  }

  /**
   * Casts {@code release}: its payloads are applied in dependency order, waited for until healthy,
   * what the release no longer holds is pruned last, and the new revision is recorded {@code
   * DEPLOYED}; or the method throws. {@link #plan(ReleaseInput)} shows beforehand what it does.
   *
   * @return the deployed revision and the plan executed
   * @throws InvalidReleaseException if the payloads do not match the spec; nothing was written
   * @throws ReleaseConflictException if the plan has conflicts; nothing was written
   * @throws dev.capstan.release.error.DestructiveChangeRefusedException if the plan deletes what
   *     the options' {@link dev.capstan.release.model.DeleteGate} keeps; nothing was written
   * @throws ReleaseLockedException if another operation holds the release; nothing was written
   * @throws CastFailedException if the cast started and failed; its result holds the {@code FAILED}
   *     revision
   * @throws ClusterException if a port failed before the cast started
   */
  public CastResult cast(ReleaseInput release) {
    return casts.cast(release.spec(), release.payloads());
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
   * resourceVersion), the cast is refused, naming each. {@code payloads} must be the payloads the
   * plan was computed from: each must hash to the plan's content hash.
   *
   * @param plan the reviewed plan; its {@link Plan#fingerprint()} says what it was computed from
   * @param payloads the payloads it was computed from (a plan holds hashes, never content)
   * @return the deployed revision and the plan executed (this plan)
   * @throws IllegalArgumentException if the plan has no fingerprint (made by hand)
   * @throws InvalidReleaseException if a payload does not hash to the plan's content hash, is
   *     missing or is not in the plan; nothing was written
   * @throws StalePlanException if the record or a planned object moved since the plan; nothing was
   *     written
   * @see #cast(ReleaseInput) for the other outcomes
   */
  public CastResult cast(Plan plan, Payloads payloads) {
    return casts.castReviewed(plan, payloads, () -> false);
  }

  /**
   * Casts exactly {@code plan} as {@link #cast(Plan, Payloads)} does, giving way to a newer
   * revision once {@code superseded} (cheap, non-blocking, asked on the casting thread) answers
   * {@code true}: no write after that; the revision is recorded {@code FAILED} as superseded and
   * the lease given up (ARCHITECTURE.md, "Superseding a wait").
   *
   * @throws CastFailedException caused by a {@code CastSupersededException} when superseded
   */
  public CastResult cast(Plan plan, Payloads payloads, BooleanSupplier superseded) {
    return casts.castReviewed(plan, payloads, superseded);
  }

  /**
   * Casts many releases at once, as a host that keeps a fleet of them up to date would: each as
   * {@link #cast(ReleaseInput)} casts it, except that a release already as asked is left alone,
   * with nothing written for it (no lease, no record, no revision).
   *
   * <p>What tells them apart is read once for all of them (the latest records of each namespace,
   * then one observation of each kind and namespace they name). A release is as asked when that
   * plan changes no object and its latest revision is {@code DEPLOYED} with the same objects, in
   * the same order, and the same version, source and references: what {@link
   * dev.capstan.release.plan.Plan#changesNothing()} and the release controller's "up to date" mean.
   * Every other release (a first install, a change, drift, a failed or pending latest revision, an
   * invalid input, a conflict) is cast, {@code parallelism} at once, each with its own lease and
   * record, and its exception kept as its outcome: one release failing does not stop the others.
   *
   * <p>Those casts read together too, under their leases, in small groups; "as asked" holds when
   * observed, as a plan that finds nothing to do (ARCHITECTURE.md, "Many releases at once").
   *
   * <p>Interrupting the calling thread interrupts the casts under way and starts no other; the
   * releases not cast are reported {@link CastOutcome.Failed}, the interrupt status left set. An
   * {@link Error} thrown by a cast starts no other, and is thrown once the casts under way end.
   *
   * @param releases the releases, each at most once
   * @param parallelism how many casts run at once, at least 1
   * @return one outcome per release, in the order given
   * @throws IllegalArgumentException if a release is given twice or {@code parallelism} is below 1;
   *     nothing was read or written
   * @throws ClusterException if the shared reads fail; nothing was written
   */
  public List<CastOutcome> castAll(List<ReleaseInput> releases, int parallelism) {
    return fleet.castAll(releases, parallelism);
  }

  /**
   * Starts a cast of {@code spec} with its {@code payloads}, as {@link #castDetached(ReleaseInput,
   * Executor)} does.
   *
   * @deprecated {@code castDetached(new ReleaseInput(spec, payloads), executor)} ({@link
   *     #castDetached(ReleaseInput, Executor)}): the payloads are given once
   */
  @Deprecated
  public DetachedCast castDetached(ReleaseSpec spec, Payloads payloads, Executor executor) {
    return casts.castDetached(spec, payloads, executor);
  }

  /**
   * Starts a cast of {@code release} and returns once its {@code PENDING} record is saved; the rest
   * runs on {@code executor}. A plan that prunes is refused: it must be cast in the foreground.
   *
   * @return the pending revision, the plan, and the completion of the cast
   * @throws ReleaseException if the plan prunes; nothing was written
   * @see #cast(ReleaseInput) for the other outcomes, which the completion carries
   */
  public DetachedCast castDetached(ReleaseInput release, Executor executor) {
    return casts.castDetached(release.spec(), release.payloads(), executor);
  }

  /**
   * Casts the payloads recorded in {@code revision} forward as a new revision, with the references
   * and version that revision had.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   * @see #cast(ReleaseInput) for the other outcomes
   */
  public CastResult rollback(String namespace, String name, int revision) {
    return rollback(namespace, name, revision, ReleaseOptions.defaults());
  }

  /**
   * {@link #rollback(String, String, int)} with the given cast options ({@code atomic}, {@code
   * timeout}, {@code adopt}, ...), as {@link #cast(ReleaseInput)} takes a spec's.
   */
  public CastResult rollback(String namespace, String name, int revision, ReleaseOptions options) {
    return rollback(namespace, name, revision, options, Payloads.empty());
  }

  /**
   * {@link #rollback(String, String, int)} with the values of the Secrets the revision did not
   * record ({@link ReleaseOptions#recordSecretValues()} off): each given, hashing as its record
   * says, and nothing else; the new revision does not record them either.
   *
   * @param secrets the Secrets the revision withheld, given again (typed or manifests)
   * @throws InvalidReleaseException naming each withheld Secret not given, given with other values,
   *     or anything given that the revision recorded; nothing was written
   * @see #rollback(String, String, int)
   */
  public CastResult rollback(String namespace, String name, int revision, Payloads secrets) {
    return rollback(namespace, name, revision, ReleaseOptions.defaults(), secrets);
  }

  /**
   * {@link #rollback(String, String, int, Payloads)} with the given cast options.
   *
   * @see #rollback(String, String, int, ReleaseOptions)
   */
  public CastResult rollback(
      String namespace, String name, int revision, ReleaseOptions options, Payloads secrets) {
    return rollbacks.rollback(namespace, name, revision, options, secrets);
  }

  /**
   * The plan a {@link #rollback} to {@code revision} would execute now; persists nothing. Secrets
   * whose values the revision did not record are planned by their recorded keyed hashes.
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
    return rollbacks.planRollback(namespace, name, revision, options, false);
  }

  /**
   * {@link #planRollback(String, String, int)} with field-level diffs as {@link #planWithDiff}
   * computes them.
   */
  public Plan planRollbackWithDiff(String namespace, String name, int revision) {
    return planRollbackWithDiff(namespace, name, revision, ReleaseOptions.defaults());
  }

  /**
   * {@link #planRollbackWithDiff(String, String, int)} with the given cast options, castable as
   * {@link #planRollback(String, String, int, ReleaseOptions)}'s plan is.
   */
  public Plan planRollbackWithDiff(
      String namespace, String name, int revision, ReleaseOptions options) {
    return rollbacks.planRollback(namespace, name, revision, options, true);
  }

  /**
   * Uninstalls a release: deletes what it owns in reverse apply order, never touching shared kinds
   * or objects it does not own, keeps objects annotated {@code helm.sh/resource-policy: keep}
   * (always), volume claims that {@code Retain} (or all, {@code keepVolumes}) and CRDs (unless
   * {@code deleteCrds}) un-stamped and listed in the record, then keeps an {@code UNINSTALLED}
   * tombstone, or with {@code purge} deletes every record (ARCHITECTURE.md, "Uninstall").
   * Uninstalling an uninstalled release does nothing (or purges).
   *
   * @throws ReleaseNotFoundException if the release is not recorded
   * @throws ReleaseLockedException if another operation holds it
   * @throws UninstallFailedException if deleting an object failed; run uninstall again to continue
   */
  public UninstallResult uninstall(String namespace, String name, UninstallOptions options) {
    return uninstalls.uninstall(namespace, name, options);
  }

  /**
   * Runs the {@code test} hooks of a release's latest revision (ARCHITECTURE.md, "Hooks"), as
   * {@code helm test} does: under its lease, one at a time in run order, the first that fails
   * stopping them, each awaited within {@code timeout} unless it sets its own. Their outcomes
   * replace the revision's earlier test runs in its record; nothing of the release is written.
   *
   * @param timeout how long each test hook may run, unless it sets its own
   * @return the tested revision and each test's outcome ({@link TestResult#passed()})
   * @throws ReleaseNotFoundException if the release is not recorded
   * @throws InvalidReleaseException if its latest revision is not deployed
   * @throws ReleaseLockedException if another operation holds it
   */
  public TestResult test(String namespace, String name, java.time.Duration timeout) {
    return tests.test(namespace, name, timeout, java.util.Set.of());
  }

  /**
   * {@link #test(String, String, java.time.Duration)}, letting the test hooks write the objects
   * {@code allowedHooks} names outside the release's namespace: a test hook outside it that is not
   * named refuses the test before anything is written ({@link HookPlan#refusal}).
   *
   * @param allowedHooks the test hooks' objects allowed outside the release's namespace
   * @throws ReleaseException if the record lists a test hook outside its namespace not named there
   */
  public TestResult test(
      String namespace,
      String name,
      java.time.Duration timeout,
      java.util.Collection<ResourceRef> allowedHooks) {
    return tests.test(namespace, name, timeout, allowedHooks);
  }

  /**
   * The hooks an {@link #uninstall} of the release's latest revision runs, as its record lists them
   * ({@code pre-delete}, then {@code post-delete}), to review (and show) before uninstalling: each
   * is written with the uninstaller's rights, and a record is as trusted as whoever may write it.
   * Pin the reviewed revision with {@link UninstallOptions#withExpectedRevision}.
   *
   * @throws ReleaseNotFoundException if the release is not recorded
   */
  public HookPlan planUninstallHooks(String namespace, String name) {
    return HookPlan.uninstall(recorded(namespace, name));
  }

  /**
   * The hooks {@link #test} of the release's latest revision runs, as its record lists them, to
   * review before testing.
   *
   * @throws ReleaseNotFoundException if the release is not recorded
   */
  public HookPlan planTestHooks(String namespace, String name) {
    return HookPlan.test(recorded(namespace, name));
  }

  private Release recorded(String namespace, String name) {
    return get(namespace, name)
        .orElseThrow(() -> new ReleaseNotFoundException(namespace + "/" + name, null));
  }

  /**
   * Uninstalls many releases at once, each as {@link #uninstall} uninstalls it, with {@code
   * options}, {@code parallelism} at once, and its exception kept as its outcome: one release
   * failing (not recorded, locked, a delete refused) does not stop the others.
   *
   * <p>They read together, in small groups, as {@link #castAll} reads. An interrupt or an {@link
   * Error} stops it as it stops {@link #castAll}: the uninstalls under way record how far they got,
   * no other starts, and those are reported {@link UninstallOutcome.Failed}.
   *
   * @param releases the releases, each at most once
   * @param options how each is uninstalled
   * @param parallelism how many uninstalls run at once, at least 1
   * @return one outcome per release, in the order given
   * @throws IllegalArgumentException if a release is given twice or {@code parallelism} is below 1;
   *     nothing was read or written
   */
  public List<UninstallOutcome> uninstallAll(
      List<ReleaseRef> releases, UninstallOptions options, int parallelism) {
    return fleetUninstalls.uninstallAll(releases, options, parallelism);
  }

  /** The default lease duration in seconds. */
  public static final int DEFAULT_LEASE_SECONDS = 15;

  /**
   * The default lease duration: 15 seconds, renewed every 5, as client-go's leader election
   * (ARCHITECTURE.md, "Leases and retries").
   */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(DEFAULT_LEASE_SECONDS);

  /**
   * The default number of deletes (or un-stamps) of one rank in flight at once in an uninstall and
   * a cast's prune ({@link ReleaseControllerBuilder#deleteParallelism}; why 64: ARCHITECTURE.md,
   * "Uninstall").
   */
  public static final int DEFAULT_DELETE_PARALLELISM = 64;
}
