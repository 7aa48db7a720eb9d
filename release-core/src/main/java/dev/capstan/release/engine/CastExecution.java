package dev.capstan.release.engine;

import dev.capstan.common.CapstanException;
import dev.capstan.common.ClusterException;
import dev.capstan.common.Durations;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.IgnoredField;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One cast attempt once its intent is kept (in its lease, or as its {@code PENDING} record): the
 * namespaces, the plan's pre-hooks ({@link HookStage}), then apply wave by wave in dependency order
 * (objects of one rank in parallel, bounded; CRDs waited for before what follows them), wait for
 * what each wave wrote to be healthy, the post-hooks, remove last in reverse order (one rank at a
 * time, its objects in parallel); on failure, compute the owned set that matches what happened, or
 * revert from pre-images when atomic. Every write is fenced on what the plan observed ({@link
 * Precondition#of}); a fenced write fails the cast naming the object and why (see {@link #fenced}).
 */
final class CastExecution {
  private final Ports ports;
  private final Plan plan;
  private final Payloads payloads;
  private final LiveState live;
  private final ReleaseIdentity identity;
  private final int parallelism;
  private final int deleteParallelism;
  private final Duration timeout;
  private final LeaseKeeper lease;
  private final Consumer<ReleaseEvent> events;
  private final String release;
  private final boolean verifyAll;
  private final boolean replaceOnImmutable;
  private final HookStage hooks;
  private final Supersession superseded;

  /** The wait for what each wave wrote to be healthy, by the release's health rules. */
  private final HealthStage health;

  /** When the cast's wait for health ends ({@link System#nanoTime}), set when it runs. */
  private long deadline;

  private final Map<PlannedChange, Integer> order = new HashMap<>();

  /** Changes whose port call was attempted (the failing one included), by plan position. */
  private final Set<PlannedChange> attempted = ConcurrentHashMap.newKeySet();

  /** Creates fenced because the object appeared since the plan: not this release's. */
  private final Set<ResourceRef> notTaken = ConcurrentHashMap.newKeySet();

  /** Applies that completed. */
  private final Set<ResourceRef> applied = ConcurrentHashMap.newKeySet();

  /** Removals that completed: deleted objects and un-stamped volumes (also in the next). */
  private final Set<ResourceRef> pruned = ConcurrentHashMap.newKeySet();

  private final Set<ResourceRef> unstamped = ConcurrentHashMap.newKeySet();

  /** The uid each un-stamped object had when observed, where the adapter reports one. */
  private final Map<ResourceRef, String> unstampedUids = new ConcurrentHashMap<>();

  CastExecution(
      Ports ports,
      Plan plan,
      Payloads payloads,
      LiveState live,
      ReleaseIdentity identity,
      int parallelism,
      int deleteParallelism,
      ReleaseOptions options,
      LeaseKeeper lease,
      Consumer<ReleaseEvent> events,
      boolean verifyAll,
      HookStage hooks,
      BooleanSupplier superseded) {
    this.ports = ports;
    this.superseded = new Supersession(superseded);
    this.hooks = hooks;
    this.verifyAll = verifyAll;
    this.plan = plan;
    this.payloads = payloads;
    this.live = live;
    this.identity = identity;
    this.parallelism = parallelism;
    this.deleteParallelism = deleteParallelism;
    this.timeout = options.timeout();
    this.replaceOnImmutable = options.replaceOnImmutable();
    this.lease = lease;
    this.events = events;
    this.release = identity.qualifiedName();
    this.health = new HealthStage(ports, options, events, release, this.superseded);
    for (int i = 0; i < plan.changes().size(); i++) {
      order.put(plan.changes().get(i), i);
    }
  }

  /**
   * Applies, verifies and removes.
   *
   * @throws RuntimeException the first failure; the attempt's state is kept for {@link #failedOwns}
   */
  void run() {
    deadline = System.nanoTime() + timeout.toNanos();
    // namespaces first: referenced ones created with createNamespace, ensured ones created or
    // labelled; a missing home namespace was created before the lease was taken (ReleaseController)
    List<PlannedChange> namespaces =
        plan.changes().stream()
            .filter(
                c ->
                    (c.createReference() || c.ensures())
                        && !(c.ref().name().equals(identity.namespace())
                            && (c.createReference() || c.action() == Action.CREATE)))
            .toList();
    if (!namespaces.isEmpty()) {
      lease.checkHeld();
      runGroup(namespaces, this::applyOne);
    }
    hooks.runBefore(plan.hooks(), payloads); // a failing one stops the cast before its writes
    // Waves in order; within a wave, one group per rank in apply order (the plan is sorted so).
    Map<Integer, Map<Integer, List<PlannedChange>>> waves = new TreeMap<>();
    Map<Integer, List<ResourceRef>> toVerify = new TreeMap<>();
    for (PlannedChange c : plan.changes()) {
      if (c.desiredHash() == null) {
        continue;
      }
      Map<Integer, List<PlannedChange>> wave =
          waves.computeIfAbsent(c.wave(), w -> new LinkedHashMap<>());
      List<ResourceRef> verify = toVerify.computeIfAbsent(c.wave(), w -> new ArrayList<>());
      if (c.action().writes()) {
        wave.computeIfAbsent(c.ref().kind().rank(), k -> new ArrayList<>()).add(c);
      }
      if (c.action().writes() || verifyAll) {
        verify.add(c.ref());
      }
    }
    for (Map.Entry<Integer, Map<Integer, List<PlannedChange>>> wave : waves.entrySet()) {
      superseded.checkBeforeWave();
      long waveStarted = System.nanoTime();
      int writes = wave.getValue().values().stream().mapToInt(List::size).sum();
      events.accept(new ReleaseEvent.WaveStarted(release, wave.getKey(), writes));
      for (List<PlannedChange> group : wave.getValue().values()) {
        lease.checkHeld();
        runGroup(group, this::applyOne);
        List<ResourceRef> crds =
            group.stream().map(PlannedChange::ref).filter(r -> r.kind().isCrd()).toList();
        if (!crds.isEmpty()) {
          // Custom resources follow in later groups: their CRDs must be Established first.
          health.await(crds, deadline, applied);
        }
      }
      lease.checkHeld();
      health.await(toVerify.getOrDefault(wave.getKey(), List.of()), deadline, applied);
      events.accept(
          new ReleaseEvent.WaveFinished(
              release, wave.getKey(), Duration.ofNanos(System.nanoTime() - waveStarted)));
    }

    hooks.runAfter(plan.hooks(), payloads);
    // Removals in the plan's order (reverse rank), one rank at a time, its objects in parallel
    // (at the delete parallelism: deletes are cheap for the API server).
    Map<Integer, List<PlannedChange>> removals = new LinkedHashMap<>();
    for (PlannedChange c : plan.changes()) {
      if (c.action() == Action.PRUNE || c.action() == Action.RETAIN) {
        removals.computeIfAbsent(c.ref().kind().rank(), r -> new ArrayList<>()).add(c);
      }
    }
    for (List<PlannedChange> group : removals.values()) {
      lease.checkHeld();
      Parallel.forEach(group, deleteParallelism, "capstan-prune", lease, this::remove);
    }
  }

  private void runGroup(List<PlannedChange> group, Consumer<PlannedChange> write) {
    Parallel.forEach(group, parallelism, "capstan-apply", lease, write);
  }

  private void applyOne(PlannedChange c) {
    lease.checkHeld(); // before every write, so none goes out on a lease that may be lost
    events.accept(new ReleaseEvent.Started(release, c.ref(), c.action()));
    attempted.add(c);
    if (c.createReference()) {
      ports.orchestrator().createNamespace(c.ref().name());
    } else if (c.ensures()) {
      ports
          .orchestrator()
          .ensureNamespace(ensured(payloads, c.ref()), identity.namespace(), identity.name());
    } else {
      Manifest object =
          payloads
              .get(c.ref())
              .orElseThrow(() -> new IllegalStateException("no payload for " + c.ref().key()));
      String hash = c.desiredHash();
      if (hash == null) {
        throw new IllegalStateException("no desired hash for " + c.ref().key());
      }
      Manifest full = object;
      List<String> givenUp = List.of();
      if (c.action() != Action.CREATE && !c.ignored().isEmpty()) {
        // fields ignore rules leave to others: not written; those of rules of paths given up
        object = ServerVerification.asWritten(c, object);
        givenUp =
            c.ignored().stream().filter(IgnoredField::givenUp).map(IgnoredField::pointer).toList();
      }
      OwnershipStamp stamp = OwnershipStamp.of(identity, plan.revision(), hash);
      try {
        if (c.action() == Action.REPLACE) {
          replace(c, full, stamp);
        } else {
          ports.orchestrator().apply(object, stamp, Precondition.of(live.get(c.ref())), givenUp);
        }
      } catch (PreconditionFailedException e) {
        applyAgainIfOnlyStatusMoved(c, object, stamp, givenUp, e);
      } catch (ClusterException e) {
        if (!Replacements.refusedAsImmutable(e.status(), e.getMessage())
            || c.action() == Action.CREATE
            || c.action() == Action.REPLACE) {
          throw e;
        }
        if (c.action() == Action.ADOPT) {
          // an adopted object was never the release's: deleting it to create it again is not
          // the release's to do, whatever the options say
          throw new ReleaseException(
              e.getMessage()
                  + "; the API server cannot update "
                  + c.ref().key()
                  + " in place, and an object being adopted is never deleted and created again:"
                  + " change it to match the release, or delete it yourself, then cast again",
              e);
        }
        // the plan showed an update, not a replace: a cast never deletes what its plan did not
        // show (the destructive-change gate, the CRD rules and the access review judged an update)
        throw new ReleaseException(
            Replacements.refusedMessage(
                c.ref(),
                String.valueOf(e.getMessage()),
                replaceOnImmutable || Replacements.optedIn(full, ReleaseOptions.defaults())),
            e);
      }
      applied.add(c.ref());
    }
    events.accept(new ReleaseEvent.Done(release, c.ref(), c.action()));
  }

  /**
   * Replaces an object its plan shows as a {@link Action#REPLACE} (and only such one: the
   * destructive-change gate, the CRD rules and the access review judged that delete): deletes it
   * (on ownership and uid, {@link Fencing#removeOwned}), waits until it is gone (finalizers run),
   * and creates it again as a create writes it (the whole object, fenced on its absence). A fenced
   * delete wrote nothing: the change is then not attempted, so neither the failed record nor a
   * revert claims what is there.
   */
  private void replace(PlannedChange c, Manifest object, OwnershipStamp stamp) {
    try {
      Fencing.removeOwned(
          ports.orchestrator(),
          c.ref(),
          identity,
          Action.PRUNE,
          Precondition.of(live.get(c.ref())),
          events,
          release);
    } catch (ReleaseException e) {
      // fenced: nothing was written to it, and what is there now is not this cast's to revert
      attempted.remove(c);
      throw e;
    }
    Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    Readiness gone = ports.orchestrator().awaitDeleted(List.of(c.ref()), left);
    if (!gone.isReady()) {
      throw new ReleaseException(
          "replace of "
              + c.ref().key()
              + ": the object was deleted but is not gone within the cast's timeout of "
              + Durations.format(timeout)
              + " (a finalizer holds it); not created again");
    }
    lease.checkHeld();
    ports.orchestrator().apply(object, stamp, Precondition.absent());
  }

  /** The Namespace object that ensures {@code ref}: only its name, labels and annotations. */
  static Manifest ensured(Payloads payloads, ResourceRef ref) {
    return EnsuredNamespace.of(
            payloads
                .get(ref)
                .orElseThrow(() -> new IllegalStateException("no payload for " + ref.key())))
        .toManifest();
  }

  private void remove(PlannedChange c) {
    lease.checkHeld();
    events.accept(new ReleaseEvent.Started(release, c.ref(), c.action()));
    attempted.add(c);
    try {
      // on ownership and uid: an owned object a controller changed since the plan is still removed
      boolean removed =
          Fencing.removeOwned(
              ports.orchestrator(),
              c.ref(),
              identity,
              c.action(),
              Precondition.of(live.get(c.ref())),
              events,
              release);
      if (c.action() == Action.PRUNE) {
        pruned.add(c.ref());
      } else if (removed) {
        // its uid first: the retained uids name retained objects only
        live.get(c.ref()).map(LiveObject::uid).ifPresent(uid -> unstampedUids.put(c.ref(), uid));
        unstamped.add(c.ref());
      }
    } catch (ReleaseException e) {
      attempted.remove(c); // fenced: nothing was written to it
      throw e;
    }
    events.accept(new ReleaseEvent.Done(release, c.ref(), c.action()));
  }

  /**
   * Writes {@code object} once more when its write was fenced only because the server moved what it
   * manages (a Deployment's controller writing its status between the observation and the write):
   * same uid, stamp and content as observed ({@link Fencing#unchangedSince}), so the plan still
   * holds. Anything else, or a second refusal, is the fenced write's failure.
   */
  private void applyAgainIfOnlyStatusMoved(
      PlannedChange c,
      Manifest object,
      OwnershipStamp stamp,
      List<String> givenUp,
      PreconditionFailedException e) {
    Precondition again =
        c.action() == Action.REPLACE || e.precondition() instanceof Precondition.Absent
            ? null
            : Fencing.unchangedSince(ports.orchestrator(), c.ref(), live.get(c.ref()).orElse(null));
    if (again == null) {
      throw fenced(c, e);
    }
    events.accept(
        new ReleaseEvent.Warning(
            release,
            c.ref().key()
                + " moved since the plan with its content and stamp unchanged (only what the server"
                + " manages, such as its status); written again on "
                + again.describe()));
    try {
      ports.orchestrator().apply(object, stamp, again, givenUp);
    } catch (PreconditionFailedException twice) {
      throw fenced(c, twice);
    }
  }

  /**
   * The failure of a fenced write, after looking at the object once more to say what happened:
   * {@code ConfigMap/shop/shared was created by release shop/b since the plan; not taken}, or
   * {@code ConfigMap/shop/web changed since the plan (uid u-1, resourceVersion 7): it now carries
   * the stamp of release shop/b; not updated}. Reported as a {@link ReleaseEvent.Fenced} event.
   */
  private ReleaseException fenced(PlannedChange c, PreconditionFailedException e) {
    // nothing was written: the change was not attempted, and a create found someone else's object
    attempted.remove(c);
    if (e.precondition() instanceof Precondition.Absent) {
      notTaken.add(c.ref());
    }
    String reason = Fencing.describe(ports.orchestrator(), c.ref(), c.action(), e);
    events.accept(new ReleaseEvent.Fenced(release, c.ref(), c.action(), reason));
    return new ReleaseException(reason, e);
  }

  /** How the hooks it ran ended, in the order they ran. */
  List<dev.capstan.release.model.HookOutcome> hookOutcomes() {
    return hooks.outcomes();
  }

  /** The owned set after a successful run: every desired object with its desired hash. */
  List<OwnedResource> deployedOwns() {
    List<OwnedResource> owns = new ArrayList<>();
    for (PlannedChange c : plan.changes()) {
      String hash = c.desiredHash();
      if (hash != null) {
        owns.add(new OwnedResource(c.ref(), hash));
      }
    }
    return owns;
  }

  /**
   * The owned set after a failed, non-reverted run: the previous owned set, with every attempted
   * apply at its desired hash (it may be live), without what was deleted or un-stamped, and without
   * an object whose create was fenced (it appeared since the plan: someone else's).
   */
  List<OwnedResource> failedOwns(List<OwnedResource> previous) {
    Map<ResourceRef, String> owns = new LinkedHashMap<>();
    previous.forEach(o -> owns.put(o.ref(), o.contentHash()));
    for (PlannedChange c : attempted) {
      String hash = c.desiredHash();
      if (hash != null) {
        owns.put(c.ref(), hash);
      }
    }
    pruned.forEach(owns::remove);
    unstamped.forEach(owns::remove);
    notTaken.forEach(owns::remove);
    return owns.entrySet().stream().map(e -> new OwnedResource(e.getKey(), e.getValue())).toList();
  }

  /** The retained objects after this run: previous ones not re-adopted, plus un-stamped ones. */
  List<ResourceRef> retainedAfter(List<ResourceRef> previous) {
    Set<ResourceRef> retained = new TreeSet<>(previous);
    retained.removeAll(applied);
    retained.addAll(unstamped);
    return List.copyOf(retained);
  }

  /**
   * The uids of the retained objects after this run ({@link #retainedAfter}): those of the previous
   * ones not re-adopted, and those the un-stamped ones had when observed.
   */
  List<RetainedUid> retainedUidsAfter(List<RetainedUid> previous) {
    Map<ResourceRef, String> uids = new TreeMap<>();
    previous.forEach(u -> uids.put(u.ref(), u.uid()));
    uids.keySet().removeAll(applied);
    uids.keySet().removeAll(unstamped);
    unstamped.forEach(
        ref -> {
          String uid = unstampedUids.get(ref);
          if (uid != null) {
            uids.put(ref, uid);
          }
        });
    return uids.entrySet().stream().map(e -> new RetainedUid(e.getKey(), e.getValue())).toList();
  }

  /**
   * Reverts every attempted change, newest first, from the pre-images observed before the first
   * write: created objects are deleted (if still ours), changed, adopted, pruned or un-stamped ones
   * are written back with their previous content and stamp, on the object this cast wrote or, for
   * one it deleted, on its absence ({@link Fencing#writeBack}): an object another writer deleted,
   * re-created or took since is left as it is, and reported. Namespaces are left as they are:
   * created ones kept, ensured ones with the labels and annotations applied, a deleted one gone.
   * Each write is checked against the lease first: once it is lost (taken over while this operation
   * stalled) the revert stops, since the objects are the new holder's to change.
   *
   * @return the errors, empty when the revert is complete
   */
  List<String> revert() {
    List<PlannedChange> reverse =
        attempted.stream()
            .sorted(Comparator.comparing((PlannedChange c) -> order.get(c)).reversed())
            .toList();
    List<String> errors = new ArrayList<>();
    for (PlannedChange c : reverse) {
      if (c.createReference()
          || c.action() == Action.REFERENCE
          || c.ref().kind().equals(Kind.NAMESPACE)) {
        continue;
      }
      try {
        // a revert writes too: never on a lease that another holder may have taken
        lease.checkHeld();
      } catch (CapstanException e) {
        errors.add("stopped before reverting " + c.ref().key() + ": " + e.getMessage());
        break;
      }
      try {
        Optional<LiveObject> before = live.get(c.ref());
        if (before.isEmpty()) {
          ports.orchestrator().delete(c.ref(), identity);
        } else {
          // only over the object this cast wrote, or where it deleted one; never another's
          Fencing.writeBack(ports.orchestrator(), before.get(), c.action(), identity);
        }
        events.accept(new ReleaseEvent.Reverted(release, c.ref(), true, null));
      } catch (RuntimeException e) {
        errors.add(c.ref().key() + ": " + e.getMessage());
        events.accept(new ReleaseEvent.Reverted(release, c.ref(), false, e.getMessage()));
      }
    }
    return errors;
  }
}
