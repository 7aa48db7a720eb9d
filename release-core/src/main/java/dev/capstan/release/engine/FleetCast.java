package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastOutcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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

  public FleetCast(EngineContext context, CastOperation casts) {
    this.context = context;
    this.planning = new Planning(context);
    this.casts = casts;
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
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1: " + parallelism);
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < inputs.size(); i++) {
      String release = requireNonNull(inputs.get(i), "inputs[" + i + "]").qualifiedName();
      Integer earlier = seen.putIfAbsent(release, i);
      if (earlier != null) {
        throw new IllegalArgumentException(
            "release " + release + " is given twice (inputs " + earlier + " and " + i + ")");
      }
    }
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

  /** A release whose latest revision is deployed: what its plan needs once the cluster is read. */
  private record Candidate(
      int index,
      ReleaseSpec spec,
      Release latest,
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
      ReleaseSpec spec = planning.withHome(inputs.get(i).spec());
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
        Planning.checkCastable(spec, latest);
        effective = Planning.effective(spec, inputs.get(i).payloads(), latest);
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
      Plan plan = Planning.plan(c.effective(), c.latest(), slice(shared, c.reads()));
      if (asAsked(plan, c.latest(), c.spec())) {
        found.put(c.index(), unchanged(c, plan));
      }
    }
    return found;
  }

  private Map<String, StoredRelease> latestByName(String namespace) {
    Map<String, StoredRelease> byName = new HashMap<>();
    for (StoredRelease r : context.store.latestRecords(namespace)) {
      byName.put(r.release().name(), r);
    }
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

  /** What one candidate's own observation would have returned, taken from the shared one. */
  private static LiveState slice(LiveState shared, Planning.Reads reads) {
    Map<LiveState.Scope, List<LiveObject>> found = new HashMap<>();
    reads
        .names()
        .forEach(
            (scope, names) -> {
              List<LiveObject> objects = new ArrayList<>();
              for (String name : names) {
                shared
                    .get(ResourceRef.of(scope.kind(), scope.namespace(), name))
                    .ifPresent(objects::add);
              }
              found.put(scope, objects);
            });
    return Ports.liveState(found, reads.known());
  }

  /**
   * Whether a cast of {@code plan} would change nothing but the revision number: no object to write
   * or delete, the same objects owned in the same order, and the same version, source and
   * references as {@code latest} records.
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
          return new CastOutcome.Unchanged(release, c.latest(), plan);
        });
  }

  /**
   * Casts the inputs at {@code indexes}, {@code parallelism} at once, on threads of their own. An
   * interrupt of the calling thread interrupts the casts under way (each stops at its next safe
   * point and records its failure) and starts no other: those are reported failed, not cast. An
   * {@link Error} on one of the threads starts no other cast either, and is thrown once the casts
   * under way have ended.
   */
  private void castEach(
      List<ReleaseInput> inputs, List<Integer> indexes, int parallelism, CastOutcome[] outcomes) {
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean stopped = new AtomicBoolean();
    AtomicReference<@Nullable Error> error = new AtomicReference<>();
    Runnable worker =
        () -> {
          try {
            for (int k = next.getAndIncrement();
                k < indexes.size() && !stopped.get();
                k = next.getAndIncrement()) {
              int i = indexes.get(k);
              outcomes[i] = castOne(inputs.get(i));
            }
          } catch (Error e) {
            // not a release's failure: no other cast starts, and the caller gets it
            error.compareAndSet(null, e);
            stopped.set(true);
          }
        };
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < Math.min(parallelism, indexes.size()); w++) {
      Thread t = new Thread(worker, "capstan-cast-all-" + w);
      t.setDaemon(true);
      workers.add(t);
      t.start();
    }
    boolean interrupted = false;
    for (Thread t : workers) {
      while (t.isAlive()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          interrupted = true;
          stopped.set(true);
          workers.forEach(Thread::interrupt);
        }
      }
    }
    for (int i : indexes) {
      if (outcomes[i] == null) {
        String release = inputs.get(i).qualifiedName();
        outcomes[i] =
            new CastOutcome.Failed(
                release,
                new ReleaseException(
                    "release "
                        + release
                        + " was not cast: castAll was interrupted before its cast started"));
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Error failed = error.get();
    if (failed != null) {
      throw failed;
    }
  }

  private CastOutcome castOne(ReleaseInput input) {
    try {
      return new CastOutcome.Cast(
          input.qualifiedName(), casts.cast(input.spec(), input.payloads()));
    } catch (RuntimeException e) {
      return new CastOutcome.Failed(input.qualifiedName(), e);
    }
  }
}
