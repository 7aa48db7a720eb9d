package dev.capstan.release;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.common.Sleeper;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.internal.DaemonThreads;
import dev.capstan.release.model.DesiredResource;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.Waves;
import dev.capstan.release.model.WithheldSecret;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.plan.Planner;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
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
 *
 * <p>Interrupting the thread an operation runs on stops it at its next safe point: no object write
 * starts after the interrupt is seen (the check before every write fails, on the threads writing a
 * rank in parallel too, which are interrupted in turn); a wait (for health, a rollout, the lease, a
 * retry) ends at once. The operation then unwinds as after a failed write: a cast records the
 * revision {@code FAILED} ("... was interrupted; stopped before the next write") and an uninstall
 * its progress, without reverting ({@code atomic}), and the lease is given up; the exception thrown
 * is the operation's usual failure, and the thread's interrupt status is left set.
 */
public final class ReleaseController {
  private final Ports ports;
  private final Store store;
  private final Clock clock;
  private final int maxHistory;
  private final Duration leaseDuration;
  private final Duration leaseRenewal;
  private final Duration leaseWait;
  private final Sleeper sleeper;
  private final dev.capstan.common.Backoff leasePoll;
  private final List<ReleaseListener> listeners;

  /** The operation running on this thread, whose listeners receive the events it sends. */
  private static final ThreadLocal<OperationScope> CURRENT = new ThreadLocal<>();

  private final int parallelism;
  private final int deleteParallelism;
  private final String holder;
  private final Supplier<String> ids;

  private ReleaseController(Builder b) {
    this.ports = new Ports(b.orchestrator, b.store);
    this.store = b.store;
    this.clock = b.clock;
    this.maxHistory = b.maxHistory;
    this.leaseDuration = b.leaseDuration;
    this.leaseRenewal = b.leaseRenewal != null ? b.leaseRenewal : b.leaseDuration.dividedBy(3);
    if (leaseRenewal.compareTo(leaseDuration.dividedBy(2)) > 0) {
      throw new IllegalArgumentException(
          "leaseRenewal must be at most half the lease duration ("
              + Durations.format(leaseDuration)
              + "), so one missed renewal does not lose the lease: "
              + Durations.format(leaseRenewal));
    }
    this.leaseWait = b.leaseWait;
    this.sleeper = b.sleeper;
    this.leasePoll = b.leasePoll;
    List<ReleaseListener> all = new ArrayList<>();
    all.add(EventLog.INSTANCE);
    all.addAll(b.listeners);
    this.listeners = List.copyOf(all);
    this.parallelism = b.parallelism;
    this.deleteParallelism =
        b.deleteParallelism != null
            ? b.deleteParallelism
            : b.parallelism == 1 ? 1 : Math.max(b.parallelism, DEFAULT_DELETE_PARALLELISM);
    this.holder = dev.capstan.release.internal.Names.requireText(b.holder.get(), "holder");
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
    return plan(spec, null);
  }

  /**
   * Computes the plan for casting {@code spec} with its {@code payloads}, without changing
   * anything: unlike {@link #plan(ReleaseSpec)}, it sees the config rollouts the cast would make
   * (ARCHITECTURE.md, "Config rollouts").
   *
   * @param payloads the payloads of {@code spec}, or {@code null} to plan from the spec's hashes
   *     alone (workloads that read config then plan as updates: their annotation is not known)
   * @throws ReleaseException if the release is being uninstalled
   * @throws ClusterException if reading the record or the live state fails
   */
  public Plan plan(ReleaseSpec spec, @Nullable Payloads payloads) {
    return operation(Operation.PLAN, spec.qualifiedName(), () -> planOnly(spec, payloads));
  }

  private Plan planOnly(ReleaseSpec spec, @Nullable Payloads payloads) {
    spec = withHome(spec);
    Optional<StoredRelease> before = store.latestRecord(spec.namespace(), spec.name());
    checkCastable(spec, before.map(StoredRelease::release).orElse(null));
    Plan plan = planEffective(spec, payloads, before);
    if (!plan.applyable()) {
      // The same second look a cast takes (see prepare): another cast of this release may have
      // recorded and written between our two reads; its objects are then this release's.
      Optional<StoredRelease> again = store.latestRecord(spec.namespace(), spec.name());
      if (!sameVersion(before, again)) {
        checkCastable(spec, again.map(StoredRelease::release).orElse(null));
        plan = planEffective(spec, payloads, again);
      }
    }
    emit(new ReleaseEvent.Planned(spec.qualifiedName(), plan));
    return plan;
  }

  /** Observes and plans the effective release of {@code spec} over the record {@code stored}. */
  private Plan planEffective(
      ReleaseSpec spec, @Nullable Payloads payloads, Optional<StoredRelease> stored) {
    Release latest = stored.map(StoredRelease::release).orElse(null);
    EffectiveRelease effective = effective(spec, payloads, latest);
    return reviewable(plan(effective, latest, observe(spec, latest, effective)), stored, effective);
  }

  private static EffectiveRelease effective(
      ReleaseSpec spec, @Nullable Payloads payloads, @Nullable Release latest) {
    return effective(spec, payloads, latest, SecretHashKey.generate());
  }

  /**
   * The effective release of {@code spec} over the record {@code latest}: keyed with the record's
   * Secret-hash key, or with {@code fresh} for a release that has none yet.
   */
  private static EffectiveRelease effective(
      ReleaseSpec spec,
      @Nullable Payloads payloads,
      @Nullable Release latest,
      SecretHashKey fresh) {
    return EffectiveRelease.of(spec, payloads, EffectiveRelease.keyOf(latest, fresh), latest);
  }

  /**
   * The latest of {@code records} read under the lease (the one of them decoded), or a read of it
   * if they are unknown.
   */
  private Optional<StoredRelease> latestOf(
      @Nullable List<RecordEntry> records, String namespace, String name) {
    return records == null
        ? store.latestRecord(namespace, name)
        : records.stream().findFirst().map(RecordEntry::stored);
  }

  /**
   * The plan with what casting it needs: the version of the record it was computed from and the key
   * its Secret hashes were keyed with (kept in the process, never in a plan file).
   */
  private static Plan reviewable(
      Plan plan, Optional<StoredRelease> stored, EffectiveRelease effective) {
    return plan.withFingerprint(
        requireNonNull(plan.fingerprint())
            .withRecordVersion(stored.map(StoredRelease::version).orElse(null))
            .withSecretHashKey(effective.key));
  }

  /**
   * Computes the plan for {@code spec}, as {@link #plan(ReleaseSpec)} does, with a field-level diff
   * on every update, repair and adoption ({@link PlannedChange#diff()}): the live object before,
   * against what the cluster would store after applying {@code payloads} (on Kubernetes a
   * server-side apply dry run per such object, so defaults and the fields of other managers are
   * accounted for). Creates, prunes and unchanged objects cost no extra request. For a plan a
   * person reviews; {@link #cast} plans without diffs.
   *
   * @throws InvalidReleaseException if the payloads do not match the spec; nothing was written
   * @throws ReleaseException if the release is being uninstalled
   * @throws ClusterException if reading the record or the live state, or a dry run, fails
   */
  public Plan planWithDiff(ReleaseSpec spec, Payloads payloads) {
    return operation(Operation.PLAN, spec.qualifiedName(), () -> planWithDiffOnly(spec, payloads));
  }

  private Plan planWithDiffOnly(ReleaseSpec spec, Payloads payloads) {
    spec = withHome(spec);
    PayloadValidator.validate(spec, payloads, ports.orchestrator());
    Optional<StoredRelease> stored = store.latestRecord(spec.namespace(), spec.name());
    Release latest = stored.map(StoredRelease::release).orElse(null);
    checkCastable(spec, latest);
    EffectiveRelease effective = effective(spec, payloads, latest);
    LiveState live = observe(spec, latest, effective);
    Plan plan =
        PlanDiffs.attach(
            reviewable(plan(effective, latest, live), stored, effective),
            live,
            effective.objects,
            ports.orchestrator());
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
    return operation(Operation.CAST, spec.qualifiedName(), () -> cast(spec, payloads, null));
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
    requireNonNull(plan, "plan");
    return operation(
        Operation.CAST,
        plan.namespace() + "/" + plan.name(),
        () -> prepareReviewed(plan, payloads).finish());
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
    // the planned spec holds the effective hashes (Secrets keyed, config readers annotated); the
    // caller's spec holds the payloads' own. A plan from this process carries the release's key; a
    // plan file does not, and the record's is read.
    ReleaseSpec planned = fingerprint.spec();
    ReviewedPlans.checkConsistent(plan, planned);
    List<String> problems = new ArrayList<>();
    ReleaseSpec spec = ReviewedPlans.callerSpec(planned, payloads, problems);
    Release recorded =
        fingerprint.secretHashKey() == null
            ? latestRelease(spec.namespace(), spec.name()).orElse(null)
            : null;
    EffectiveRelease effective =
        EffectiveRelease.of(spec, payloads, keyOf(fingerprint, recorded, spec), recorded);
    ReviewedPlans.checkHashes(planned, effective.spec, problems);
    PayloadValidator.validate(spec, payloads, ports.orchestrator());
    checkPlan(plan, false);
    createHomeNamespace(spec, plan, payloads);

    LeaseKeeper lease = LeaseKeeper.acquire(leaseTerms(), spec.namespace(), spec.name(), events());
    return lease.holding(
        held -> {
          List<RecordEntry> records = records(spec.namespace(), spec.name());
          Optional<StoredRelease> now = latestOf(records, spec.namespace(), spec.name());
          if (now.isPresent() && lease.grant().takenOver() != null) {
            now = Optional.of(failInterrupted(now.get(), lease));
            records = null; // housekeeping reads them again
          }
          checkNotEmpty(planned, now.map(StoredRelease::release).orElse(null));
          List<String> moved = new ArrayList<>();
          ReviewedPlans.recordMoved(fingerprint, now).ifPresent(moved::add);
          List<ResourceRef> changing = ReviewedPlans.changing(plan);
          LiveState live = ports.observe(Planner.names(changing));
          moved.addAll(ReviewedPlans.objectsMoved(fingerprint, changing, live));
          if (!moved.isEmpty()) {
            throw new StalePlanException(plan, moved);
          }
          // a plan made from the spec alone could not check its CRD changes; with the payloads
          // and the objects it writes observed again, the gate can, before any write
          Plan gated = CrdSafety.gate(plan, live, effective.applied, planned.options());
          if (!gated.applyable()) {
            throw new ReleaseConflictException(gated);
          }
          Release latest = now.map(StoredRelease::release).orElse(null);
          return savePending(
              spec,
              effective,
              payloads,
              plan,
              live,
              latest,
              lease,
              fingerprint.description(),
              records,
              false);
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
    return rollback(namespace, name, revision, options, Payloads.empty());
  }

  /**
   * Casts revision {@code revision} forward as a new revision, taking the values of the Secrets it
   * did not record ({@link ReleaseOptions#recordSecretValues()} off) from {@code secrets}: each
   * must be given, hash as that revision's record says, and nothing else may be given. The new
   * revision does not record them either.
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
    requireNonNull(options, "options");
    return operation(
        Operation.ROLLBACK,
        namespace + "/" + name,
        () -> rollbackOnly(namespace, name, revision, options, secrets));
  }

  private CastResult rollbackOnly(
      String namespace, String name, int revision, ReleaseOptions options, Payloads secrets) {
    Release target = revision(namespace, name, revision);
    Payloads payloads = rollbackPayloads(target, secrets);
    ReleaseSpec spec = rollbackSpec(target, options);
    List<DesiredResource> resources = new ArrayList<>();
    for (DesiredResource d : spec.resources()) {
      resources.add(
          new DesiredResource(
              d.ref(),
              payloads.hash(d.ref()).orElse(d.contentHash()),
              payloads.get(d.ref()).map(Waves::of).orElse(d.wave())));
    }
    return cast(spec.withResources(resources), payloads, rollbackDescription(revision));
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
    requireNonNull(options, "options");
    return operation(
        Operation.PLAN,
        namespace + "/" + name,
        () -> {
          Release target = revision(namespace, name, revision);
          Plan plan = planOnly(rollbackSpec(target, options), target.payloads());
          return plan.withFingerprint(
              requireNonNull(plan.fingerprint()).withDescription(rollbackDescription(revision)));
        });
  }

  private static String rollbackDescription(int revision) {
    return "rollback to " + revision;
  }

  /** The target's payloads with the withheld Secrets from {@code secrets}, checked. */
  private Payloads rollbackPayloads(Release target, Payloads secrets) {
    List<String> problems = new ArrayList<>();
    String at = "revision " + target.revision() + " of " + target.qualifiedName();
    @Nullable SecretHashKey key =
        latestRelease(target.namespace(), target.name())
            .map(Release::secretHashKey)
            .orElse(target.secretHashKey());
    Payloads payloads = target.payloads();
    Set<ResourceRef> withheld = new TreeSet<>();
    for (WithheldSecret w : target.withheldSecrets()) {
      withheld.add(w.ref());
      Optional<Manifest> given = secrets.get(w.ref());
      if (given.isEmpty()) {
        problems.add(
            "payloads["
                + w.ref().key()
                + "]: "
                + at
                + " was recorded without this Secret's values (recordSecretValues off); give it"
                + " again to roll back");
      } else if (key == null || !key.verifies(given.get(), w.contentHash())) {
        problems.add(
            "payloads["
                + w.ref().key()
                + "]: the values given do not hash as "
                + at
                + " recorded them (keyed content hash differs); give the values that revision"
                + " had");
      } else {
        payloads = payloads.with(secrets.item(w.ref()).orElseThrow());
      }
    }
    for (ResourceRef ref : secrets.refs()) {
      if (!withheld.contains(ref)) {
        problems.add(
            "payloads["
                + ref.key()
                + "]: "
                + at
                + " recorded this object; give only the Secrets whose values it did not record");
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseException(target.qualifiedName(), problems);
    }
    return payloads;
  }

  /**
   * The plan a {@link #rollback} to {@code revision} would execute now, with field-level diffs as
   * {@link #planWithDiff} computes them; persists nothing.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   */
  public Plan planRollbackWithDiff(String namespace, String name, int revision) {
    return planRollbackWithDiff(namespace, name, revision, ReleaseOptions.defaults());
  }

  /**
   * {@link #planRollbackWithDiff(String, String, int)} with the given cast options, castable as
   * {@link #planRollback(String, String, int, ReleaseOptions)}'s plan is.
   *
   * @throws ReleaseNotFoundException if the release or the revision is not recorded
   */
  public Plan planRollbackWithDiff(
      String namespace, String name, int revision, ReleaseOptions options) {
    requireNonNull(options, "options");
    return operation(
        Operation.PLAN,
        namespace + "/" + name,
        () -> {
          Release target = revision(namespace, name, revision);
          Plan plan = planWithDiffOnly(rollbackSpec(target, options), target.payloads());
          return plan.withFingerprint(
              requireNonNull(plan.fingerprint()).withDescription(rollbackDescription(revision)));
        });
  }

  private Release revision(String namespace, String name, int revision) {
    return history(namespace, name).stream()
        .filter(r -> r.revision() == revision)
        .findFirst()
        .orElseThrow(() -> new ReleaseNotFoundException(namespace + "/" + name, revision));
  }

  /** Revision {@code target}'s objects and references, as the spec of a new revision. */
  private static ReleaseSpec rollbackSpec(Release target, ReleaseOptions options) {
    ReleaseSpec objects = ReleaseSpec.of(target.namespace(), target.name(), target.payloads());
    List<DesiredResource> resources = new ArrayList<>(objects.resources());
    for (WithheldSecret w : target.withheldSecrets()) {
      resources.add(new DesiredResource(w.ref(), w.contentHash()));
    }
    return new ReleaseSpec(
        target.namespace(),
        target.name(),
        resources,
        target.references(),
        objects.ensured(),
        options.withRecordSecretValues(
            options.recordSecretValues() && target.withheldSecrets().isEmpty()),
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
    // one operation on two threads: it finishes when the cast completes, on the executor's thread
    OperationScope scope = OperationScope.begin(listeners, spec.qualifiedName(), Operation.CAST);
    return within(
        scope,
        () -> {
          Prepared prepared = prepare(spec, payloads, null, true);
          CompletableFuture<CastResult> completion = new CompletableFuture<>();
          try {
            executor.execute(
                () -> {
                  try {
                    completion.complete(within(scope, prepared::finish, true));
                  } catch (RuntimeException | Error e) {
                    completion.completeExceptionally(e);
                  }
                });
          } catch (RuntimeException e) {
            prepared.abort(e);
            throw e;
          }
          return new DetachedCast(prepared.pending, prepared.plan, completion);
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
   * ({@link #prepareBeforeLease}).
   */
  private Prepared prepare(
      ReleaseSpec given, Payloads payloads, @Nullable String description, boolean detached) {
    ReleaseSpec spec = withHome(given);
    PayloadValidator.validate(spec, payloads, ports.orchestrator());
    if (detached
        || spec.options().createNamespace()
        || (spec.resources().isEmpty() && !spec.options().dangerousAllowEmpty())) {
      // an empty spec is checked against the record before the lease is taken: refused, it writes
      // nothing at all
      return prepareBeforeLease(spec, payloads, description, detached);
    }
    LeaseKeeper lease;
    try {
      lease = LeaseKeeper.acquire(leaseTerms(), spec.namespace(), spec.name(), events());
    } catch (ClusterException e) {
      if (e.status() != 404) {
        throw e;
      }
      return prepareBeforeLease(spec, payloads, description, detached);
    }
    return lease.holding(
        held -> {
          List<RecordEntry> records = records(spec.namespace(), spec.name());
          Optional<StoredRelease> now = latestOf(records, spec.namespace(), spec.name());
          if (now.isPresent() && lease.grant().takenOver() != null) {
            now = Optional.of(failInterrupted(now.get(), lease));
            records = null; // housekeeping reads them again
          }
          Release latest = now.map(StoredRelease::release).orElse(null);
          checkCastable(spec, latest);
          EffectiveRelease effective = effective(spec, payloads, latest);
          LiveState live = observe(spec, latest, effective, lease.grant().namespaceExists());
          Plan plan = checkPlan(plan(effective, latest, live), detached);
          createHomeNamespace(spec, plan, payloads);
          return savePending(
              spec, effective, payloads, plan, live, latest, lease, description, records, detached);
        });
  }

  /**
   * {@link #prepare} planning before the lease: plans, creates the home namespace if the plan does,
   * takes the lease, and reads the record again under it (plans again if it moved).
   */
  private Prepared prepareBeforeLease(
      ReleaseSpec spec, Payloads payloads, @Nullable String description, boolean detached) {
    Optional<StoredRelease> before = store.latestRecord(spec.namespace(), spec.name());
    Release latest = before.map(StoredRelease::release).orElse(null);
    checkCastable(spec, latest);
    SecretHashKey fresh = SecretHashKey.generate();
    EffectiveRelease effective = effective(spec, payloads, latest, fresh);
    LiveState live = observe(spec, latest, effective);
    Plan first = plan(effective, latest, live);
    if (!first.applyable()) {
      // Another caster may have recorded and written between our two reads: look again once,
      // so it shows up as a held lease rather than as objects of an unknown install.
      Optional<StoredRelease> again = store.latestRecord(spec.namespace(), spec.name());
      if (!sameVersion(before, again)) {
        before = again;
        latest = again.map(StoredRelease::release).orElse(null);
        checkCastable(spec, latest);
        effective = effective(spec, payloads, latest, fresh);
        live = observe(spec, latest, effective);
        first = plan(effective, latest, live);
      }
    }
    Plan plan = checkPlan(first, detached);
    createHomeNamespace(spec, plan, payloads);

    BeforeLease planned = new BeforeLease(before, latest, effective, live, plan);
    return LeaseKeeper.acquire(leaseTerms(), spec.namespace(), spec.name(), events())
        .holding(
            lease ->
                prepareUnderLease(spec, payloads, description, detached, fresh, planned, lease));
  }

  /** What {@link #prepareBeforeLease} read and planned before it took the lease. */
  private record BeforeLease(
      Optional<StoredRelease> record,
      @Nullable Release latest,
      EffectiveRelease effective,
      LiveState live,
      Plan plan) {}

  /**
   * The part of {@link #prepareBeforeLease} under the lease: reads the record again and plans again
   * if it moved, fails a taken-over pending revision, saves the new one pending.
   */
  private Prepared prepareUnderLease(
      ReleaseSpec spec,
      Payloads payloads,
      @Nullable String description,
      boolean detached,
      SecretHashKey fresh,
      BeforeLease planned,
      LeaseKeeper lease) {
    Release latest = planned.latest();
    EffectiveRelease effective = planned.effective();
    LiveState live = planned.live();
    Plan plan = planned.plan();
    List<RecordEntry> records = records(spec.namespace(), spec.name());
    Optional<StoredRelease> now = latestOf(records, spec.namespace(), spec.name());
    if (!sameVersion(planned.record(), now)) {
      latest = now.map(StoredRelease::release).orElse(null);
      checkCastable(spec, latest);
      effective = effective(spec, payloads, latest, fresh);
      live = observe(spec, latest, effective);
      plan = checkPlan(plan(effective, latest, live), detached);
    }
    if (now.isPresent() && lease.grant().takenOver() != null) {
      latest = failInterrupted(now.get(), lease).release();
      records = null; // housekeeping reads them again
    }
    return savePending(
        spec, effective, payloads, plan, live, latest, lease, description, records, detached);
  }

  /**
   * Plans the effective release (keyed Secret hashes, config rollouts and their reasons), with its
   * CRD changes through the safety gate ({@link CrdSafety}).
   */
  private static Plan plan(EffectiveRelease effective, @Nullable Release latest, LiveState live) {
    return CrdSafety.gate(
        Planner.plan(effective.spec, latest, live, effective.reasons),
        live,
        effective.applied,
        effective.spec.options());
  }

  /**
   * The pending record with the release's key and, unless the options record Secrets' values, its
   * Secrets withheld: the record then keeps their data keys and keyed hashes only.
   */
  private static Release withSecrets(
      Release pending, EffectiveRelease effective, Payloads payloads, ReleaseOptions options) {
    Release keyed = pending.withSecretHashKey(effective.key);
    if (options.recordSecretValues()) {
      return keyed;
    }
    List<WithheldSecret> withheld = effective.withheld(payloads);
    Payloads kept = payloads;
    for (WithheldSecret w : withheld) {
      kept = kept.without(w.ref());
    }
    return keyed.withWithheldSecrets(kept, withheld);
  }

  /**
   * Saves the {@code PENDING} intent record of a cast whose lease is held and plan is final. {@code
   * records} are the release's revisions as read under the lease (newest first), for housekeeping,
   * or {@code null} to have housekeeping read them.
   */
  private Prepared savePending(
      ReleaseSpec spec,
      EffectiveRelease effective,
      Payloads payloads,
      Plan plan,
      LiveState live,
      @Nullable Release latest,
      LeaseKeeper lease,
      @Nullable String description,
      @Nullable List<RecordEntry> records,
      boolean detached) {
    String release = spec.qualifiedName();
    Instant at = clock.instant();
    String id = latest == null ? ids.get() : latest.id();
    List<OwnedResource> previousOwns = latest == null ? List.of() : latest.owns();
    List<ResourceRef> previousRetained = latest == null ? List.of() : latest.retained();
    Map<ResourceRef, String> intent = new LinkedHashMap<>();
    previousOwns.forEach(o -> intent.put(o.ref(), o.contentHash()));
    effective.spec.resources().forEach(d -> intent.put(d.ref(), d.contentHash()));
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
    pending = withSecrets(pending, effective, payloads, spec.options());
    // A plan that writes no object leaves nothing half-done if the process dies: its revision is
    // recorded once, with its outcome. A detached cast's caller reads the pending record.
    StoredRelease saved = null;
    if (detached || !plan.changesNothing()) {
      saved = store.createRecord(pending);
      emit(new ReleaseEvent.RecordSaved(release, plan.revision(), ReleaseStatus.PENDING));
    }
    return new Prepared(
        effective.spec,
        effective.objects,
        plan,
        live,
        pending,
        saved,
        previousOwns,
        previousRetained,
        lease,
        latest == null ? null : latest.status(),
        records);
  }

  /**
   * Creates the release's home namespace when the plan creates it: the lease and the records live
   * there, so it must exist before the lease is taken (the executor creates every other namespace).
   */
  private void createHomeNamespace(ReleaseSpec spec, Plan plan, Payloads payloads) {
    for (PlannedChange c : plan.changes()) {
      boolean ensure = c.ensures() && c.action() == Action.CREATE;
      if ((c.createReference() || ensure) && c.ref().name().equals(spec.namespace())) {
        emit(new ReleaseEvent.Started(spec.qualifiedName(), c.ref(), c.action()));
        if (ensure) {
          ports
              .orchestrator()
              .ensureNamespace(
                  CastExecution.ensured(payloads, c.ref()), spec.namespace(), spec.name());
        } else {
          ports.orchestrator().createNamespace(spec.namespace());
        }
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

    /** The pending record, or {@code null} when the revision is recorded only with its outcome. */
    final @Nullable StoredRelease saved;

    final List<OwnedResource> previousOwns;
    final List<ResourceRef> previousRetained;
    final LeaseKeeper lease;
    final @Nullable ReleaseStatus previousStatus;
    final @Nullable List<RecordEntry> records;

    Prepared(
        ReleaseSpec spec,
        Payloads payloads,
        Plan plan,
        LiveState live,
        Release pending,
        @Nullable StoredRelease saved,
        List<OwnedResource> previousOwns,
        List<ResourceRef> previousRetained,
        LeaseKeeper lease,
        @Nullable ReleaseStatus previousStatus,
        @Nullable List<RecordEntry> records) {
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
      this.records = records;
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
            return fail(
                spec, plan, pending, saved, lease, none, previousOwns, previousRetained, cause);
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
          deleteParallelism,
          spec.options().timeout(),
          spec.options().waitForLoadBalancer(),
          lease,
          events(),
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
        saveOutcome(deployed, saved);
      } catch (RuntimeException e) {
        throw fail(spec, plan, pending, saved, lease, execution, previousOwns, previousRetained, e);
      }
      String release = spec.qualifiedName();
      emit(new ReleaseEvent.RecordSaved(release, plan.revision(), ReleaseStatus.DEPLOYED));
      housekeeping(spec.namespace(), spec.name(), plan.revision(), records);
      return new CastResult(deployed, plan, CastResult.Revert.NOT_ATTEMPTED);
    }
  }

  private CastFailedException fail(
      ReleaseSpec spec,
      Plan plan,
      Release pending,
      @Nullable StoredRelease saved,
      LeaseKeeper lease,
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
    // recorded on an interrupted thread too: an interrupt stops a cast before its next write
    Release recorded =
        Uninterrupted.get(() -> recordFailure(spec, plan, pending, saved, lease, failed, cause));
    return new CastFailedException(new CastResult(recorded, plan, revert), cause);
  }

  /**
   * Records {@code failed} over the cast's pending record (or as a new one while the cast still
   * holds the lease), and returns what is recorded: {@code failed}, or the revision as the lease's
   * new holder already recorded it failed. A failure to record is added to {@code cause}.
   */
  private Release recordFailure(
      ReleaseSpec spec,
      Plan plan,
      Release pending,
      @Nullable StoredRelease saved,
      LeaseKeeper lease,
      Release failed,
      RuntimeException cause) {
    try {
      if (saved == null) {
        // no pending record: the revision is recorded only while this cast still holds the lease
        lease.checkHeld();
      }
      saveOutcome(failed, saved);
      emit(
          new ReleaseEvent.RecordSaved(
              spec.qualifiedName(), plan.revision(), ReleaseStatus.FAILED));
    } catch (StaleRecordException e) {
      // The lease was taken over meanwhile and the new holder recorded this attempt FAILED.
      Release now = recordedRevision(pending).orElse(null);
      if (now != null && now.status() == ReleaseStatus.FAILED) {
        emit(
            new ReleaseEvent.Warning(
                spec.qualifiedName(),
                "revision "
                    + plan.revision()
                    + " was already recorded failed by the lease's new holder: "
                    + now.failure()));
        return now;
      }
      unrecorded(spec, cause, e);
    } catch (RuntimeException e) {
      unrecorded(spec, cause, e);
    }
    return failed;
  }

  private void unrecorded(ReleaseSpec spec, RuntimeException cause, RuntimeException e) {
    cause.addSuppressed(e);
    emit(
        new ReleaseEvent.Warning(
            spec.qualifiedName(),
            "could not record the failure; the revision stays pending until the next cast: "
                + e.getMessage()));
  }

  /** Records a cast's outcome: over its pending record, or as a new record when it has none. */
  private void saveOutcome(Release outcome, @Nullable StoredRelease pending) {
    if (pending == null) {
      store.createRecord(outcome);
    } else {
      store.updateRecord(outcome, pending.version());
    }
  }

  /** The stored state of {@code r}'s revision, if it can be read. */
  private Optional<Release> recordedRevision(Release r) {
    try {
      return store.records(r.namespace(), r.name()).stream()
          .map(StoredRelease::release)
          .filter(x -> x.revision() == r.revision())
          .findFirst();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Every revision of a release, newest first (one read: the latest and, for housekeeping, the
   * older ones, decoded only as needed: {@link Store#recordEntries}), or {@code null} when they
   * cannot be read: the caller then reads the latest alone, and housekeeping reads and warns, as
   * before.
   */
  private @Nullable List<RecordEntry> records(String namespace, String name) {
    try {
      return store.recordEntries(namespace, name);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Marks older deployed revisions superseded and trims history; failures only warn. {@code before}
   * are the revisions read under the lease before {@code revision} was recorded (newest first;
   * nobody else records while the lease is held, so they are still current): no read then; {@code
   * null} reads them.
   */
  private void housekeeping(
      String namespace, String name, int revision, @Nullable List<RecordEntry> before) {
    try {
      int offset = before == null ? 0 : 1; // the new revision comes first, before them
      List<RecordEntry> revisions = before == null ? store.recordEntries(namespace, name) : before;
      for (int j = 0; j < revisions.size(); j++) {
        RecordEntry r = revisions.get(j);
        int i = j + offset;
        if (r.revision() == revision) {
          continue;
        }
        if (i >= maxHistory) {
          store.deleteRecord(namespace, name, r.revision());
        } else if (r.status() == ReleaseStatus.DEPLOYED) {
          // the one record decoded here: a superseded one is rewritten whole
          StoredRelease deployed = r.stored();
          store.updateRecord(
              deployed.release().withStatus(ReleaseStatus.SUPERSEDED, clock.instant()),
              deployed.version());
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
    // the record is read once, under the lease; a release without one leaves no lease behind
    return operation(
        Operation.UNINSTALL,
        namespace + "/" + name,
        () ->
            LeaseKeeper.acquire(leaseTerms(), namespace, name, events())
                .run(lease -> uninstallLeased(namespace, name, options, lease)));
  }

  private UninstallResult uninstallLeased(
      String namespace, String name, UninstallOptions options, LeaseKeeper lease) {
    String release = namespace + "/" + name;
    Optional<StoredRelease> found = store.latestRecord(namespace, name);
    if (found.isEmpty()) {
      lease.forgetOnClose();
      throw new ReleaseNotFoundException(release, null);
    }
    StoredRelease stored = found.get();
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
    // The observation runs while the record is saved UNINSTALLING (nothing is deleted before
    // both are done): on Kubernetes each is a request plus a few hundred ms of decoding.
    List<EnsuredNamespace> namespaces = Leftovers.deletable(latest, options);
    List<ResourceRef> looked = new ArrayList<>();
    latest.owns().forEach(o -> looked.add(o.ref()));
    namespaces.forEach(e -> looked.add(e.ref()));
    CompletableFuture<LiveState> observing = new CompletableFuture<>();
    DaemonThreads.named("capstan-observe")
        .newThread(
            () -> {
              try {
                observing.complete(ports.observe(Planner.names(looked)));
              } catch (RuntimeException | Error e) {
                observing.completeExceptionally(e);
              }
            })
        .start();
    Release uninstalling =
        latest
            .withStatus(ReleaseStatus.UNINSTALLING, clock.instant())
            .withLease(lease.grant().lease());
    stored = store.updateRecord(uninstalling, stored.version());
    emit(new ReleaseEvent.RecordSaved(release, latest.revision(), ReleaseStatus.UNINSTALLING));

    Map<ResourceRef, String> remaining = Collections.synchronizedMap(new LinkedHashMap<>());
    uninstalling.owns().forEach(o -> remaining.put(o.ref(), o.contentHash()));
    Set<ResourceRef> retained = Collections.synchronizedSet(new TreeSet<>(uninstalling.retained()));
    Set<ResourceRef> deleted = ConcurrentHashMap.newKeySet();
    Set<ResourceRef> kept = ConcurrentHashMap.newKeySet();
    List<String> notes = new ArrayList<>();
    LiveState live = awaitObservation(observing, release);
    // One rank at a time in reverse apply order; the objects of a rank in parallel, each written
    // on what the observation returned (uid and resourceVersion preconditions, no read first).
    Map<Integer, List<ResourceRef>> ranks = new LinkedHashMap<>();
    uninstalling.owns().stream()
        .map(OwnedResource::ref)
        .sorted(ResourceRef.PRUNE_ORDER)
        .forEach(ref -> ranks.computeIfAbsent(ref.kind().rank(), r -> new ArrayList<>()).add(ref));
    AtomicReference<@Nullable ResourceRef> failedAt = new AtomicReference<>();
    Consumer<ReleaseEvent> events = events(); // the deletes report from the pool's threads
    try {
      for (List<ResourceRef> rank : ranks.values()) {
        failedAt.compareAndSet(null, rank.get(0));
        lease.checkHeld();
        failedAt.set(null);
        Parallel.forEach(
            rank,
            deleteParallelism,
            "capstan-uninstall",
            lease,
            ref -> {
              try {
                lease.checkHeld();
                uninstallOne(
                    release, uninstalling, options, live, ref, retained, deleted, kept, events);
                remaining.remove(ref);
              } catch (RuntimeException e) {
                failedAt.compareAndSet(null, ref);
                throw e;
              }
            });
      }
      List<ResourceRef> gone = deleted.stream().sorted(ResourceRef.PRUNE_ORDER).toList();
      Duration wait = options.waitFor();
      if (wait != null && !gone.isEmpty()) {
        lease.checkHeld();
        emit(new ReleaseEvent.Verifying(release, gone, wait));
        Readiness readiness = ports.orchestrator().awaitDeleted(gone, wait);
        if (!readiness.isReady()) {
          List<ResourceRef> pending =
              readiness instanceof Readiness.TimedOut t ? t.pending() : gone;
          Map<ResourceRef, String> hashes = new LinkedHashMap<>();
          uninstalling.owns().forEach(o -> hashes.put(o.ref(), o.contentHash()));
          pending.forEach(ref -> remaining.put(ref, requireNonNull(hashes.get(ref))));
          failedAt.compareAndSet(null, pending.get(0));
          throw new ReleaseException(
              "deletion not finished after "
                  + Durations.format(wait)
                  + ": "
                  + pending.stream().map(ResourceRef::key).collect(Collectors.joining(", "))
                  + (pending.size() == 1 ? " still exists" : " still exist"));
        }
        emit(new ReleaseEvent.Verified(release, gone.size()));
      }
      // ensured namespaces the release may delete go last: everything in them goes with them
      for (EnsuredNamespace e : namespaces) {
        Optional<String> keeps = Leftovers.keeps(e, live.get(e.ref()), latest, options.purge());
        if (keeps.isPresent()) {
          notes.add(keeps.get());
        } else if (!e.name().equals(namespace)) {
          failedAt.set(e.ref());
          deleteNamespace(release, uninstalling, live, e.ref(), deleted);
          failedAt.set(null);
        }
      }
    } catch (RuntimeException e) {
      ResourceRef at = failedAt.get();
      if (at == null) {
        throw e;
      }
      Release progress =
          uninstalling
              .withOwns(toOwned(remaining))
              .withRetained(List.copyOf(retained))
              .withFailure("uninstall stopped at " + at.key() + ": " + e.getMessage())
              .withLease(null);
      String version = stored.version();
      Uninterrupted.run( // recorded on an interrupted thread too
          () -> {
            try {
              store.updateRecord(progress, version);
            } catch (RuntimeException saveError) {
              e.addSuppressed(saveError);
            }
          });
      emit(new ReleaseEvent.Failed(release, e.getMessage() == null ? "" : e.getMessage()));
      throw new UninstallFailedException(progress, at, e);
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
      // the home namespace last of all, once its records are gone
      for (EnsuredNamespace e : namespaces) {
        if (e.name().equals(namespace)
            && Leftovers.keeps(e, live.get(e.ref()), latest, true).isEmpty()) {
          deleteNamespace(release, uninstalling, live, e.ref(), deleted);
        }
      }
    } else {
      store.updateRecord(tombstone, stored.version());
      emit(new ReleaseEvent.RecordSaved(release, latest.revision(), ReleaseStatus.UNINSTALLED));
    }
    List<ResourceRef> deletedInOrder = new ArrayList<>();
    deleted.stream()
        .filter(r -> !r.kind().equals(Kind.NAMESPACE))
        .sorted(ResourceRef.PRUNE_ORDER)
        .forEach(deletedInOrder::add);
    namespaces.stream()
        .map(EnsuredNamespace::ref)
        .filter(deleted::contains)
        .forEach(deletedInOrder::add);
    List<String> leftovers = new ArrayList<>(notes);
    leftovers.addAll(Leftovers.keptNamespaces(latest, options));
    leftovers.addAll(Leftovers.statefulSetClaims(latest, deletedInOrder));
    return new UninstallResult(
        tombstone,
        deletedInOrder,
        kept.stream().sorted(ResourceRef.PRUNE_ORDER).toList(),
        options.purge(),
        leftovers);
  }

  /** Deletes an ensured namespace the uninstall may delete, on its observation. */
  private void deleteNamespace(
      String release,
      Release uninstalling,
      LiveState live,
      ResourceRef ref,
      Set<ResourceRef> deleted) {
    emit(new ReleaseEvent.Started(release, ref, Action.PRUNE));
    try {
      ports.orchestrator().delete(ref, uninstalling.identity(), Precondition.of(live.get(ref)));
    } catch (PreconditionFailedException e) {
      String reason = Fencing.describe(ports.orchestrator(), ref, Action.PRUNE, e);
      emit(new ReleaseEvent.Fenced(release, ref, Action.PRUNE, reason));
      throw new ReleaseException(reason, e);
    }
    deleted.add(ref);
    emit(new ReleaseEvent.Done(release, ref, Action.PRUNE));
  }

  /**
   * Deletes or un-stamps one object the release owns, if the observation shows it still carries the
   * release's stamp; a write the precondition fences fails naming what changed.
   */
  private void uninstallOne(
      String release,
      Release uninstalling,
      UninstallOptions options,
      LiveState live,
      ResourceRef ref,
      Set<ResourceRef> retained,
      Set<ResourceRef> deleted,
      Set<ResourceRef> kept,
      Consumer<ReleaseEvent> events) {
    Optional<LiveObject> obj = live.get(ref);
    OwnershipStamp stamp = obj.map(LiveObject::stamp).orElse(null);
    if (stamp == null || !stamp.ownedBy(uninstalling.identity())) {
      return;
    }
    boolean keep =
        ref.kind().isVolumeClaim()
            ? options.keepVolumes() || uninstalling.retainsVolume(ref, obj.get().content())
            : ref.kind().isCrd() && !options.deleteCrds();
    Action action = keep ? Action.RETAIN : Action.PRUNE;
    Precondition precondition = Precondition.of(obj);
    events.accept(new ReleaseEvent.Started(release, ref, action));
    try {
      if (keep) {
        ports.orchestrator().unstamp(ref, uninstalling.identity(), precondition);
        retained.add(ref);
        kept.add(ref);
      } else {
        ports.orchestrator().delete(ref, uninstalling.identity(), precondition);
        deleted.add(ref);
      }
    } catch (PreconditionFailedException e) {
      String reason = Fencing.describe(ports.orchestrator(), ref, action, e);
      events.accept(new ReleaseEvent.Fenced(release, ref, action, reason));
      throw new ReleaseException(reason, e);
    }
    events.accept(new ReleaseEvent.Done(release, ref, action));
  }

  private static LiveState awaitObservation(
      CompletableFuture<LiveState> observing, String release) {
    try {
      return observing.get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new ReleaseException("observing " + release + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReleaseException("interrupted while observing " + release, e);
    }
  }

  private void purge(String namespace, String name, LeaseKeeper lease) {
    store.deleteRecords(namespace, name);
    lease.forgetOnClose();
  }

  private static List<OwnedResource> toOwned(Map<ResourceRef, String> owns) {
    return owns.entrySet().stream().map(e -> new OwnedResource(e.getKey(), e.getValue())).toList();
  }

  // ------------------------------------------------------------------ helpers

  private LeaseKeeper.Terms leaseTerms() {
    return new LeaseKeeper.Terms(
        store, holder, clock, leaseDuration, leaseRenewal, leaseWait, leasePoll, sleeper);
  }

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
    checkNotEmpty(spec, latest);
  }

  /**
   * Refuses a spec that holds no object to own over a release that owns some, unless {@link
   * ReleaseOptions#dangerousAllowEmpty()}: an empty or truncated input would otherwise prune the
   * whole release.
   */
  private static void checkNotEmpty(ReleaseSpec spec, @Nullable Release latest) {
    if (!spec.resources().isEmpty()
        || spec.options().dangerousAllowEmpty()
        || latest == null
        || latest.owns().isEmpty()) {
      return;
    }
    List<String> owned = latest.owns().stream().map(o -> o.ref().key()).toList();
    throw new InvalidReleaseException(
        spec.qualifiedName(),
        List.of(
            "resources: the release holds no object to own, but revision "
                + latest.revision()
                + " owns "
                + owned.size()
                + " ("
                + String.join(", ", owned.subList(0, Math.min(3, owned.size())))
                + (owned.size() > 3 ? ", …" : "")
                + "), which this cast would delete; check that the input is complete (a release"
                + " file without spec, a truncated file or an empty directory gives no object)."
                + " To delete them all, uninstall the release, or pass dangerousAllowEmpty (the"
                + " CLI's --dangerous-allow-empty)"));
  }

  /**
   * {@code spec} with a reference to its home namespace when the store keeps the release's records
   * and lease there ({@link Store#recordsInNamespace()}): the plan then shows a missing one,
   * refuses it, or creates it with {@code createNamespace}.
   */
  private ReleaseSpec withHome(ReleaseSpec spec) {
    ResourceRef home = ResourceRef.namespace(spec.namespace());
    return store.recordsInNamespace() && !spec.references().contains(home)
        ? spec.withReference(home)
        : spec;
  }

  private LiveState observe(
      ReleaseSpec spec, @Nullable Release latest, EffectiveRelease effective) {
    return observe(spec, latest, effective, false);
  }

  /**
   * Observes what {@code spec} and {@code latest} name, telling drift by what {@code effective}
   * would apply; with {@code homeExists} (the lease just taken lives in the release's namespace) a
   * home namespace that the release only references is known present and not listed again.
   */
  private LiveState observe(
      ReleaseSpec spec, @Nullable Release latest, EffectiveRelease effective, boolean homeExists) {
    Map<LiveState.Scope, Set<String>> names = Planner.names(spec, latest);
    List<LiveObject> known = new ArrayList<>();
    ResourceRef home = ResourceRef.namespace(spec.namespace());
    LiveState.Scope scope = new LiveState.Scope(Kind.NAMESPACE, "");
    Set<String> namespaces = names.get(scope);
    if (homeExists
        && namespaces != null
        && spec.references().contains(home)
        && spec.ensured(spec.namespace()).isEmpty()
        && spec.resources().stream().noneMatch(d -> d.ref().equals(home))
        && (latest == null || latest.owns().stream().noneMatch(o -> o.ref().equals(home)))) {
      Set<String> rest = new TreeSet<>(namespaces);
      rest.remove(spec.namespace());
      names.put(scope, rest);
      known.add(LiveObject.present(home));
    }
    return ports.observe(names, known, effective.applied);
  }

  private static boolean sameVersion(Optional<StoredRelease> a, Optional<StoredRelease> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return a.isEmpty() && b.isEmpty();
    }
    return a.get().version().equals(b.get().version())
        && a.get().release().revision() == b.get().release().revision();
  }

  /**
   * Runs {@code body} as one operation: {@code OperationStarted} first, then its events, then one
   * {@code Finished} built from what it returned or threw (ARCHITECTURE.md, "Observability").
   */
  private <T> T operation(Operation operation, String release, Supplier<T> body) {
    return within(OperationScope.begin(listeners, release, operation), body, true);
  }

  /**
   * Runs {@code body} with {@code scope} as this thread's operation; finishes the operation when
   * {@code body} throws, or with {@code finish} when it returns.
   */
  private <T> T within(OperationScope scope, Supplier<T> body, boolean finish) {
    OperationScope outer = CURRENT.get();
    CURRENT.set(scope);
    try {
      T result = body.get();
      if (finish) {
        scope.succeeded(result);
      }
      return result;
    } catch (RuntimeException | Error e) {
      scope.failed(e);
      throw e;
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /** Sends an event of this thread's operation to its listeners. */
  private void emit(ReleaseEvent event) {
    OperationScope scope = CURRENT.get();
    if (scope == null) {
      OperationScope.deliver(listeners, event);
    } else {
      scope.emit(event);
    }
  }

  /** Where this thread's operation sends its events from other threads (pools, lease renewals). */
  private Consumer<ReleaseEvent> events() {
    OperationScope scope = CURRENT.get();
    return scope == null ? this::emit : scope::emit;
  }

  /** The default lease duration in seconds. */
  public static final int DEFAULT_LEASE_SECONDS = 15;

  /**
   * The default lease duration: 15 seconds, renewed every 5, as Kubernetes leader election does
   * (client-go's 15-second lease): a caster killed with {@code kill -9} blocks the next one for at
   * most 15 seconds, one lost renewal is survived, and renewing costs one small write per 5
   * seconds.
   */
  public static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(DEFAULT_LEASE_SECONDS);

  /**
   * The default number of deletes (or un-stamps) of one rank in flight at once in an uninstall and
   * a cast's prune (see {@link Builder#deleteParallelism}). Higher than the write parallelism: a
   * delete carries no body, and the API server spends no admission, defaulting or field management
   * on it, but it does wait on its own work (a Service's delete, ~70 ms on kube-apiserver 1.36,
   * releases its IP and ports), so small groups of deletes leave an API server with CPU to spare
   * waiting; Helm sends a kind's deletes all at once. 64 keeps a rank of hundreds of objects within
   * a few round trips and far from an API server's limits (250 HTTP/2 streams per connection; API
   * priority and fairness queues what exceeds a client's share). Client-java's requests are
   * synchronous calls, which OkHttp's dispatcher limits (64, 5 per host) do not bound, and it has
   * no client-side rate limiter: the width reaches the server. Where the server's CPU is the limit,
   * a wider delete only queues longer (README, "Side by side with Helm and kubectl").
   */
  public static final int DEFAULT_DELETE_PARALLELISM = 64;

  /**
   * The default lease holder: {@code pid <pid>/<8 random hex>}, from the process alone
   * (release-core reads no file and no environment; a host that wants its machine named passes a
   * holder, e.g. release-k8s's {@code LeaseHolders.onThisHost()}).
   */
  private static String defaultHolder() {
    return "pid "
        + ProcessHandle.current().pid()
        + "/"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Configures a {@link ReleaseController}. */
  public static final class Builder {
    private final Orchestrator orchestrator;
    private final Store store;
    private Clock clock = Clock.systemUTC();
    private int maxHistory = 10;
    private Duration leaseDuration = DEFAULT_LEASE_DURATION;
    private @Nullable Duration leaseRenewal;
    private Duration leaseWait = Duration.ZERO;
    private Sleeper sleeper = Sleeper.system();
    private dev.capstan.common.Backoff leasePoll = LeaseKeeper.POLL;
    private final List<ReleaseListener> listeners = new ArrayList<>();
    private int parallelism = 4;
    private @Nullable Integer deleteParallelism;
    private Supplier<String> holder = ReleaseController::defaultHolder;
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
     * How long the operation lease lasts without renewal, at least one second (default {@value
     * #DEFAULT_LEASE_SECONDS} seconds). A holder that dies blocks others until it lapses; a holder
     * whose renewals fail for that long stops before its next write.
     */
    public Builder leaseDuration(Duration leaseDuration) {
      requireNonNull(leaseDuration, "leaseDuration");
      if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "leaseDuration must be at least 1 second: " + Durations.format(leaseDuration));
      }
      this.leaseDuration = leaseDuration;
      return this;
    }

    /**
     * How often the lease is renewed while an operation runs, positive and at most half the lease
     * duration (default: a third of it, 5 seconds for the default 15-second lease).
     */
    public Builder leaseRenewal(Duration every) {
      requireNonNull(every, "leaseRenewal");
      if (every.isNegative() || every.isZero()) {
        throw new IllegalArgumentException(
            "leaseRenewal must be positive: " + Durations.format(every));
      }
      this.leaseRenewal = every;
      return this;
    }

    /**
     * How long an operation queues behind another live holder of the lease, polling with backoff
     * (200 ms doubling to 2 s), before it gives up with {@link ReleaseLockedException}; zero (the
     * default) gives up at once.
     */
    public Builder waitForLease(Duration wait) {
      requireNonNull(wait, "waitForLease");
      if (wait.isNegative()) {
        throw new IllegalArgumentException(
            "waitForLease must not be negative: " + Durations.format(wait));
      }
      this.leaseWait = wait;
      return this;
    }

    /** Pauses between lease polls (default: {@link Sleeper#system()}; tests pass a fake). */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = requireNonNull(sleeper, "sleeper");
      return this;
    }

    /** How the lease is polled while waiting (tests pass one with a seeded jitter). */
    Builder leasePoll(dev.capstan.common.Backoff poll) {
      this.leasePoll = requireNonNull(poll, "leasePoll");
      return this;
    }

    /**
     * Adds a listener of progress events (default: none; the controller logs every event through
     * SLF4J itself). Each listener added receives every event, in the order they were added, and a
     * listener that throws is logged and does not keep the others from the event.
     */
    public Builder listener(ReleaseListener listener) {
      this.listeners.add(requireNonNull(listener, "listener"));
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

    /**
     * How many objects of one rank to delete (or un-stamp) at once in an uninstall and a cast's
     * prune, at least 1. Default: {@value #DEFAULT_DELETE_PARALLELISM}, or the write {@linkplain
     * #parallelism parallelism} when that is 1 (one request at a time) or higher. Ranks still go
     * one after the other in reverse apply order, each delete still carries the observed uid and
     * resourceVersion: only the objects of one rank go out together.
     */
    public Builder deleteParallelism(int deleteParallelism) {
      if (deleteParallelism < 1) {
        throw new IllegalArgumentException(
            "deleteParallelism must be at least 1: " + deleteParallelism);
      }
      this.deleteParallelism = deleteParallelism;
      return this;
    }

    /**
     * The lease holder name shown to others (default: {@code pid <pid>/<8 random hex>}, the random
     * part keeping two controllers of one process apart).
     */
    public Builder holder(String holder) {
      String name = dev.capstan.release.internal.Names.requireText(holder, "holder");
      this.holder = () -> name;
      return this;
    }

    /**
     * Where the lease holder name shown to others comes from, asked once by {@link #build()}
     * (default: {@code pid <pid>/<8 random hex>}, the random part keeping two controllers of one
     * process apart; release-k8s's {@code LeaseHolders.onThisHost()} names the machine too).
     */
    public Builder holder(Supplier<String> holder) {
      this.holder = requireNonNull(holder, "holder");
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
