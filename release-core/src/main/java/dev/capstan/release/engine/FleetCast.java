package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastOutcome;
import dev.capstan.release.result.CastResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Casts many releases at once, reading for all of them together what tells which are already as
 * asked: one read of the latest records per namespace ({@link
 * dev.capstan.release.port.Store#latestRecords}) and one observation per kind and namespace. A
 * release found as asked is left alone (no lease, no record); every other one is cast by {@link
 * CastOperation#cast(ReleaseSpec, dev.capstan.release.model.Payloads)}, {@code parallelism} at once
 * (ARCHITECTURE.md, "Many releases at once").
 */
public final class FleetCast {
  private final EngineContext context;
  private final Planning planning;
  private final CastOperation casts;
  private final PlanJudge judge;
  private final CastIntent intent;

  public FleetCast(EngineContext context, CastOperation casts) {
    this.context = context;
    this.planning = new Planning(context);
    this.casts = casts;
    this.judge = new PlanJudge(context);
    this.intent = new CastIntent(context);
  }

  /**
   * One outcome per input, in input order.
   *
   * @throws IllegalArgumentException if a release is given twice or {@code parallelism} is below 1;
   *     nothing was read or written
   * @throws dev.capstan.common.ClusterException if the shared reads fail; nothing was written
   */
  public List<CastOutcome> castAll(List<ReleaseInput> inputs, int parallelism) {
    requireNonNull(inputs, "inputs");
    FleetWorkers.checkCall(inputs, ReleaseInput::qualifiedName, parallelism);
    CastOutcome[] outcomes = new CastOutcome[inputs.size()];
    Map<Integer, CastOutcome.Unchanged> unchanged = unchanged(inputs);
    List<Integer> toCast = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      CastOutcome.Unchanged found = unchanged.get(i);
      if (found != null) {
        outcomes[i] = found;
      } else {
        toCast.add(i);
      }
    }
    castEach(inputs, toCast, parallelism, outcomes);
    return List.of(outcomes);
  }

  /**
   * A release to observe with others: what its plan needs once the cluster is read (its latest
   * revision, deployed when it is judged for {@code unchanged}).
   */
  private record Candidate(
      int index,
      ReleaseSpec spec,
      @Nullable Release latest,
      EffectiveRelease effective,
      Planning.Reads reads) {}

  /**
   * The inputs found as asked from the shared reads, by index; every other one is to be cast. Only
   * a release whose latest revision is {@code DEPLOYED} and whose input is valid can be found so;
   * the others are cast without being observed here (their cast observes them under its lease).
   */
  private Map<Integer, CastOutcome.Unchanged> unchanged(List<ReleaseInput> inputs) {
    Map<Integer, CastOutcome.Unchanged> found = new HashMap<>();
    Map<String, Map<String, StoredRelease>> records = new HashMap<>();
    List<Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      ReleaseSpec spec = CastRequest.withHome(inputs.get(i).spec(), context.store);
      try {
        PayloadValidator.validate(spec, inputs.get(i).payloads(), context.ports.orchestrator());
      } catch (RuntimeException invalid) {
        continue; // its cast refuses it, with the same exception
      }
      StoredRelease stored =
          records.computeIfAbsent(spec.namespace(), this::latestByName).get(spec.name());
      Release latest = stored == null ? null : stored.release();
      if (latest == null || latest.status() != ReleaseStatus.DEPLOYED) {
        continue;
      }
      EffectiveRelease effective;
      try {
        effective =
            Planning.castableOver(spec, inputs.get(i).payloads(), latest, SecretHashKey.generate());
      } catch (RuntimeException refused) {
        continue; // its cast refuses it, with the same exception
      }
      candidates.add(
          new Candidate(
              i,
              spec,
              latest,
              effective,
              Planning.reads(spec, latest, planning.homeProven(latest))));
    }
    if (candidates.isEmpty()) {
      return found;
    }
    LiveState shared = observeTogether(candidates);
    for (Candidate c : candidates) {
      Plan plan =
          PlanStages.planned(
                  context,
                  c.latest(),
                  c.effective(),
                  Ports.slice(shared, c.reads().names(), c.reads().known()),
                  false)
              .plan();
      if (asAsked(plan, requireNonNull(c.latest()), c.spec())
          && requireNonNull(c.latest()).payloads().hooks().equals(c.effective().objects.hooks())) {
        found.put(c.index(), unchanged(c, plan));
      }
    }
    return found;
  }

  /**
   * The latest revision of each release of {@code namespace} that can be read: one that cannot, or
   * whose record is deleted while it is read, is left out here (its own cast reads it, and fails
   * naming how to recover if it cannot), not failing the others.
   */
  private Map<String, StoredRelease> latestByName(String namespace) {
    Map<String, StoredRelease> byName = new HashMap<>();
    context
        .store
        .latestEntries(namespace)
        .forEach(
            (name, entry) -> {
              try {
                byName.put(name, entry.stored());
              } catch (RecordFormatException | StaleRecordException unreadableOrGone) {
                // cast on its own, which reads it again (and fails with the advice if unreadable)
              }
            });
    return byName;
  }

  /**
   * One observation of every scope the candidates name, for all of them, telling drift by what each
   * would apply. An object two candidates want is observed without either's (as {@link
   * dev.capstan.release.port.Orchestrator#observe(dev.capstan.release.model.Kind, String, Set)}
   * does): drift read that way is never missed, only possibly found where there is none, and the
   * release is then cast rather than left alone.
   */
  private LiveState observeTogether(List<Candidate> candidates) {
    Map<LiveState.Scope, Set<String>> names = new LinkedHashMap<>();
    Map<ResourceRef, Manifest> applied = new HashMap<>();
    Set<ResourceRef> wantedTwice = new HashSet<>();
    for (Candidate c : candidates) {
      c.reads()
          .names()
          .forEach((scope, n) -> names.computeIfAbsent(scope, s -> new TreeSet<>()).addAll(n));
      c.effective()
          .applied
          .forEach(
              (ref, object) -> {
                if (applied.putIfAbsent(ref, object) != null) {
                  wantedTwice.add(ref);
                }
              });
    }
    applied.keySet().removeAll(wantedTwice);
    return context.ports.observe(names, List.of(), applied, null);
  }

  /**
   * Whether a cast of {@code plan} would change nothing but the revision number: no object to write
   * or delete, the same objects owned in the same order, and the same version, source, chart and
   * references as {@code latest} records (its caller checks the hooks are the same too).
   */
  private static boolean asAsked(Plan plan, Release latest, ReleaseSpec spec) {
    if (!plan.applyable() || !plan.changesNothing()) {
      return false;
    }
    List<ResourceRef> unchanged =
        plan.changes(Action.UNCHANGED).stream().map(PlannedChange::ref).toList();
    return latest.owns().stream().map(OwnedResource::ref).toList().equals(unchanged)
        && latest.retained().isEmpty()
        && Objects.equals(latest.version(), spec.version())
        && Objects.equals(latest.source(), spec.source())
        && Objects.equals(latest.chart(), spec.chart())
        && Set.copyOf(latest.references()).equals(Set.copyOf(spec.references()));
  }

  /** The outcome of a release found as asked, reported as one {@code PLAN} operation. */
  private CastOutcome.Unchanged unchanged(Candidate c, Plan plan) {
    String release = c.spec().qualifiedName();
    return context.operation(
        Operation.PLAN,
        release,
        () -> {
          context.emit(new ReleaseEvent.Planned(release, plan));
          return new CastOutcome.Unchanged(release, requireNonNull(c.latest()), plan);
        });
  }

  /** A release of the call that is to be cast, as far as it got. */
  private static final class Member {
    final int index;
    final ReleaseInput input;
    @Nullable OperationScope scope;

    /** Set once its operation ended or its last step began: nothing is left to abandon. */
    volatile boolean settled;

    CastOperation.@Nullable Begun begun;

    /** What the group's reads found for it; {@code null}: its cast reads for itself. */
    @Nullable Read read;

    Member(int index, ReleaseInput input) {
      this.index = index;
      this.input = input;
    }

    String release() {
      return input.qualifiedName();
    }

    @Nullable LeaseKeeper lease() {
      CastOperation.Begun b = begun;
      return b == null ? null : b.lease();
    }
  }

  /** What one release's cast would have read under its lease, read for its group. */
  private record Read(
      @Nullable List<RecordEntry> records,
      @Nullable Release latest,
      EffectiveRelease effective,
      LiveState live) {}

  /**
   * Casts the inputs at {@code indexes}, {@code parallelism} at once, on threads of their own, in
   * groups of {@value FleetWorkers#GROUP_PER_WORKER} per thread. For each group: every release is
   * validated and its lease taken; then, under those leases, the records of the group's releases
   * are read once per namespace and what they name observed once per kind and namespace; then each
   * is planned over that and cast (a cast that plans first, or whose lease was taken over from an
   * expired holder, reads for itself, as {@code cast} does). An interrupt of the calling thread
   * interrupts the casts under way (each stops at its next safe point and records its failure) and
   * starts no other: those are reported failed, not cast, their leases given up. An {@link Error}
   * on one of the threads starts no other cast either, and is thrown once the casts under way have
   * ended.
   */
  private void castEach(
      List<ReleaseInput> inputs, List<Integer> indexes, int parallelism, CastOutcome[] outcomes) {
    FleetWorkers workers = new FleetWorkers(parallelism, "capstan-cast-all");
    List<Member> members = new ArrayList<>();
    for (int i : indexes) {
      members.add(new Member(i, inputs.get(i)));
    }
    workers.inGroups(
        members,
        m -> outcomes[m.index] != null,
        m -> begin(m, outcomes),
        this::readTogether,
        m -> outcomes[m.index] = finish(m),
        m -> {
          if (m.scope != null && !m.settled) {
            outcomes[m.index] = abandon(m);
          }
        });
    for (int i : indexes) {
      if (outcomes[i] == null) {
        outcomes[i] = new CastOutcome.Failed(inputs.get(i).qualifiedName(), notCast(inputs.get(i)));
      }
    }
    workers.end();
  }

  /** Starts the cast of {@code m} as an operation of its own: validated, its lease taken. */
  private void begin(Member m, CastOutcome[] outcomes) {
    OperationScope scope = context.begin(m.release(), Operation.CAST);
    m.scope = scope;
    try {
      m.begun =
          context.within(
              scope, () -> casts.begin(m.input.spec(), m.input.payloads(), null, false), false);
    } catch (RuntimeException e) {
      outcomes[m.index] = new CastOutcome.Failed(m.release(), e); // the operation failed with it
    } catch (Error e) {
      m.settled = true; // the operation failed with it
      throw e;
    }
  }

  /**
   * Reads for the releases of a group that hold their lease (not taken over): the records of each
   * namespace's releases in one read ({@link dev.capstan.release.port.Store#recordEntries(String,
   * Set)}) and what they name in one observation ({@link #observeTogether}). A release whose record
   * cannot be read, or that may not be cast over it, is left to read for itself, and its cast fails
   * as {@code cast} would; so is every release of the group when a shared read fails.
   */
  private void readTogether(List<Member> group) {
    List<Member> leased = new ArrayList<>();
    List<ReleaseRef> refs = new ArrayList<>();
    for (Member m : group) {
      LeaseKeeper lease = m.lease();
      if (lease != null && lease.grant().takenOver() == null) {
        leased.add(m);
        ReleaseSpec spec = requireNonNull(m.begun).request().spec();
        refs.add(new ReleaseRef(spec.namespace(), spec.name()));
      }
    }
    if (leased.isEmpty()) {
      return;
    }
    try {
      FleetWorkers.GroupRecords records = new FleetWorkers.GroupRecords(context.store, refs);
      Map<Member, Candidate> candidates = new LinkedHashMap<>();
      for (Member m : leased) {
        CastRequest request = requireNonNull(m.begun).request();
        ReleaseSpec spec = request.spec();
        List<RecordEntry> entries = records.of(spec.namespace(), spec.name());
        try {
          Release latest = entries.isEmpty() ? null : entries.get(0).stored().release();
          EffectiveRelease effective =
              Planning.castableOver(spec, request.payloads(), latest, SecretHashKey.generate());
          boolean homeExists = requireNonNull(m.lease()).grant().namespaceExists();
          candidates.put(
              m,
              new Candidate(
                  m.index, spec, latest, effective, Planning.reads(spec, latest, homeExists)));
        } catch (RuntimeException e) {
          // its cast reads again, and fails as cast does
        }
      }
      LiveState shared = observeTogether(List.copyOf(candidates.values()));
      candidates.forEach(
          (m, c) -> {
            m.read =
                new Read(
                    records.of(c.spec().namespace(), c.spec().name()),
                    c.latest(),
                    c.effective(),
                    Ports.slice(shared, c.reads().names(), c.reads().known()));
          });
    } catch (RuntimeException e) {
      // each cast of the group reads for itself, and fails as cast does if it cannot either
      // (an interrupt among them stops the call: FleetWorkers.stopIfInterrupted)
    }
  }

  /** Plans and casts {@code m}, within its operation: under its lease, or planning first. */
  private CastOutcome finish(Member m) {
    m.settled = true;
    CastOperation.Begun begun = requireNonNull(m.begun);
    Read read = m.read;
    try {
      CastResult result =
          context.within(
              requireNonNull(m.scope),
              () -> {
                LeaseKeeper lease = begun.lease();
                CastAttempt prepared =
                    lease == null || read == null
                        ? casts.prepared(begun.request(), lease, true)
                        : lease.holding(
                            held ->
                                intent.savePending(
                                    begun.request(),
                                    judge.judged(
                                        begun.request(),
                                        PlanStages.planned(
                                            context,
                                            read.latest(),
                                            read.effective(),
                                            read.live(),
                                            false)),
                                    held,
                                    read.records()));
                return casts.finish(prepared);
              },
              true);
      return new CastOutcome.Cast(m.release(), result);
    } catch (RuntimeException e) {
      return new CastOutcome.Failed(m.release(), e);
    }
  }

  /** Ends the operation of a release begun and then not cast: its lease is given up. */
  private CastOutcome abandon(Member m) {
    ReleaseException notCast = notCast(m.input);
    try {
      context.within(
          requireNonNull(m.scope),
          () -> {
            LeaseKeeper lease = m.lease();
            if (lease != null) {
              lease.close();
            }
            throw notCast;
          },
          false);
    } catch (ReleaseException expected) {
      // the operation failed with it
    }
    return new CastOutcome.Failed(m.release(), notCast);
  }

  private static ReleaseException notCast(ReleaseInput input) {
    return new ReleaseException(
        "release "
            + input.qualifiedName()
            + " was not cast: castAll was interrupted before its cast started");
  }
}
