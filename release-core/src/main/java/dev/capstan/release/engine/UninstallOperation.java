package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.release.error.HookRefusedException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.event.Operation;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.internal.DaemonThreads;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.ObservedNames;
import dev.capstan.release.plan.Planner;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.UninstallResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Uninstalls a release under its lease: records it {@code UNINSTALLING} while observing what it
 * owns (unless the lease names the uninstall as its intent, {@link LeaseIntent}), runs the latest
 * revision's pre-delete hooks ({@link HookStage}; one failing stops it before any delete), deletes
 * (or un-stamps, for what it retains) one rank at a time in reverse apply order, the objects of a
 * rank in parallel, waits for the deletions if asked, runs the post-delete hooks, deletes the
 * ensured namespaces it may, then keeps an {@code UNINSTALLED} tombstone or purges every record. A
 * failed delete records how far it got ({@link UninstallFailedException}); the next uninstall
 * continues.
 */
public final class UninstallOperation {
  private final EngineContext context;
  private final Takeover takeover;

  public UninstallOperation(EngineContext context) {
    this.context = context;
    this.takeover = new Takeover(context);
  }

  /** Uninstalls a release, as one {@code UNINSTALL} operation. */
  public UninstallResult uninstall(String namespace, String name, UninstallOptions options) {
    // the record is read once, under the lease; a release without one leaves no lease behind
    return context.operation(
        Operation.UNINSTALL,
        namespace + "/" + name,
        () ->
            context
                .acquireLease(namespace, name, LeaseIntent.uninstall())
                .run(lease -> uninstallLeased(namespace, name, options, lease)));
  }

  /** Uninstalls under {@code lease}, reading the record and observing for itself. */
  UninstallResult uninstallLeased(
      String namespace, String name, UninstallOptions options, LeaseKeeper lease) {
    List<RecordEntry> entries = context.store.recordEntries(namespace, name);
    Optional<StoredRelease> latest =
        entries.isEmpty()
            ? Optional.empty()
            : Optional.of(Unreadable.stored(context.store, namespace, name, entries.get(0)));
    return uninstallRead(namespace, name, options, lease, latest, null);
  }

  /** Takes the lease of an uninstall of {@code namespace/name}, naming the uninstall. */
  LeaseKeeper acquireLease(String namespace, String name) {
    return context.acquireLease(namespace, name, LeaseIntent.uninstall());
  }

  /**
   * Uninstalls under {@code lease}, over what was read under it: the release's latest record {@code
   * read}, and, if already {@code observed}, what {@link #observed} names (else it is observed
   * here).
   */
  UninstallResult uninstallRead(
      String namespace,
      String name,
      UninstallOptions options,
      LeaseKeeper lease,
      Optional<StoredRelease> read,
      @Nullable LiveState observed) {
    String release = namespace + "/" + name;
    Optional<StoredRelease> found = takeover.recover(namespace, name, read, lease);
    if (found.isEmpty()) {
      lease.forgetOnClose();
      throw new ReleaseNotFoundException(release, null);
    }
    StoredRelease stored = found.get();
    Release latest = stored.release();
    Integer expected = options.expectedRevision();
    if (expected != null && latest.revision() != expected) {
      throw new StaleRecordException(
          release,
          expected,
          "revision "
              + latest.revision()
              + " ("
              + latest.status()
              + ") was recorded since; nothing was uninstalled");
    }
    if (latest.status() == ReleaseStatus.UNINSTALLED) {
      if (options.purge()) {
        purge(namespace, name, lease);
        return new UninstallResult(latest, List.of(), List.of(), true);
      }
      return new UninstallResult(latest, List.of(), List.of(), false);
    }
    // the record's hooks are written with the uninstaller's rights: none outside the namespace
    // unless named (HookPlan: a record is as trusted as whoever may write it)
    Optional<String> refused =
        HookPlan.uninstall(latest).refusal("uninstall", options.allowedHooks());
    if (refused.isPresent()) {
      throw new HookRefusedException(refused.get() + "; nothing was uninstalled");
    }
    return new Run(namespace, name, options, lease, stored, observed).run();
  }

  /**
   * What an uninstall of {@code latest} observes before it deletes: what the release owns, and the
   * ensured namespaces it may delete.
   */
  static List<ResourceRef> observed(Release latest, UninstallOptions options) {
    List<ResourceRef> looked = new ArrayList<>();
    latest.owns().forEach(o -> looked.add(o.ref()));
    Leftovers.deletable(latest, options).forEach(e -> looked.add(e.ref()));
    return looked;
  }

  /** One uninstall of a recorded, not yet uninstalled release, and what it has done so far. */
  private final class Run {
    final String namespace;
    final String name;
    final String release;
    final UninstallOptions options;
    final LeaseKeeper lease;
    final Release latest;
    final @Nullable LiveState observed;
    StoredRelease stored;

    /** The ensured namespaces the release may delete, last. */
    final List<EnsuredNamespace> namespaces;

    /** Its pre-delete and post-delete hooks, from the latest revision's payloads. */
    final HookStage hooks;

    final Map<ResourceRef, String> remaining = Collections.synchronizedMap(new LinkedHashMap<>());
    final Set<ResourceRef> deleted = ConcurrentHashMap.newKeySet();
    final Set<ResourceRef> kept = ConcurrentHashMap.newKeySet();

    /** The objects kept because they carry {@code helm.sh/resource-policy: keep}. */
    final Set<ResourceRef> keptByPolicy = ConcurrentHashMap.newKeySet();

    final List<String> notes = new ArrayList<>();
    final AtomicReference<@Nullable ResourceRef> failedAt = new AtomicReference<>();
    Set<ResourceRef> retained = Set.of();

    /** The uid of each retained object, where known: which object a later cast may re-adopt. */
    final Map<ResourceRef, String> retainedUids = new ConcurrentHashMap<>();

    Run(
        String namespace,
        String name,
        UninstallOptions options,
        LeaseKeeper lease,
        StoredRelease stored,
        @Nullable LiveState observed) {
      this.namespace = namespace;
      this.name = name;
      this.release = namespace + "/" + name;
      this.options = options;
      this.lease = lease;
      this.stored = stored;
      this.latest = stored.release();
      this.observed = observed;
      this.namespaces = Leftovers.deletable(latest, options);
      Duration wait = options.waitFor();
      this.hooks =
          new HookStage(
              context.ports.orchestrator(),
              latest.identity(),
              context.clock,
              wait == null ? ReleaseOptions.defaults().timeout() : wait,
              HookAdvice.uninstall(),
              lease::checkHeld,
              context.events());
    }

    UninstallResult run() {
      // The observation runs while the record is saved UNINSTALLING (nothing is deleted before
      // both are done): on Kubernetes each is a request plus a few hundred ms of decoding.
      CompletableFuture<LiveState> observing = observeAside();
      Release uninstalling =
          latest
              .withStatus(ReleaseStatus.UNINSTALLING, context.clock.instant())
              .withAttempt(lease.attempt());
      if (lease.intent() == null) {
        // the lease names no intent: the record says an uninstall is under way
        uninstalling = uninstalling.withLease(lease.grant().lease());
        stored = context.store.updateRecord(uninstalling, stored.version());
        context.emit(
            new ReleaseEvent.RecordSaved(release, latest.revision(), ReleaseStatus.UNINSTALLING));
      }

      uninstalling.owns().forEach(o -> remaining.put(o.ref(), o.contentHash()));
      retained = Collections.synchronizedSet(new TreeSet<>(uninstalling.retained()));
      uninstalling.retainedUids().forEach(u -> retainedUids.put(u.ref(), u.uid()));
      LiveState live = awaitObservation(observing, release);
      try {
        // a failing pre-delete hook stops the uninstall before anything is deleted
        hooks.run(HookPhase.PRE_DELETE, latest.payloads().hooks(HookPhase.PRE_DELETE));
        deleteOwned(uninstalling, live);
        awaitDeleted(uninstalling);
        List<Hook> postDelete = latest.payloads().hooks(HookPhase.POST_DELETE);
        if (!postDelete.isEmpty()) {
          failedAt.set(postDelete.get(0).ref()); // a failure is recorded: the objects are gone
          hooks.run(HookPhase.POST_DELETE, postDelete);
          failedAt.set(null);
        }
        // ensured namespaces the release may delete go last: everything in them goes with them
        for (EnsuredNamespace e : namespaces) {
          Optional<String> keeps = Leftovers.keeps(e, live.get(e.ref()), latest, options.purge());
          if (keeps.isPresent()) {
            notes.add(keeps.get());
          } else if (!e.name().equals(namespace)) {
            failedAt.set(e.ref());
            deleteNamespace(uninstalling, live, e.ref());
            failedAt.set(null);
          }
        }
      } catch (RuntimeException e) {
        throw stopped(uninstalling, e);
      }
      return finish(uninstalling, live);
    }

    /**
     * Observes what the release owns and the namespaces it may delete ({@link #observed}), on a
     * thread of its own, unless that was observed already.
     */
    private CompletableFuture<LiveState> observeAside() {
      if (observed != null) {
        return CompletableFuture.completedFuture(observed);
      }
      List<ResourceRef> looked = observed(latest, options);
      CompletableFuture<LiveState> observing = new CompletableFuture<>();
      DaemonThreads.named("capstan-observe")
          .newThread(
              () -> {
                try {
                  observing.complete(context.ports.observe(ObservedNames.of(looked), latest));
                } catch (RuntimeException | Error e) {
                  observing.completeExceptionally(e);
                }
              })
          .start();
      return observing;
    }

    /**
     * One rank at a time in reverse apply order; the objects of a rank in parallel, each written on
     * what the observation returned (uid and resourceVersion preconditions, no read first).
     */
    private void deleteOwned(Release uninstalling, LiveState live) {
      Map<Integer, List<ResourceRef>> ranks = new LinkedHashMap<>();
      uninstalling.owns().stream()
          .map(OwnedResource::ref)
          .sorted(ResourceRef.PRUNE_ORDER)
          .forEach(
              ref -> ranks.computeIfAbsent(ref.kind().rank(), r -> new ArrayList<>()).add(ref));
      Consumer<ReleaseEvent> events =
          context.events(); // the deletes report from the pool's threads
      for (List<ResourceRef> rank : ranks.values()) {
        failedAt.compareAndSet(null, rank.get(0));
        lease.checkHeld();
        failedAt.set(null);
        Parallel.forEach(
            rank,
            context.deleteParallelism,
            "capstan-uninstall",
            lease,
            ref -> {
              try {
                lease.checkHeld();
                uninstallOne(uninstalling, live, ref, events);
                remaining.remove(ref);
              } catch (RuntimeException e) {
                failedAt.compareAndSet(null, ref);
                throw e;
              }
            });
      }
    }

    /** With {@code waitFor}, waits until what was deleted is gone. */
    private void awaitDeleted(Release uninstalling) {
      List<ResourceRef> gone = deleted.stream().sorted(ResourceRef.PRUNE_ORDER).toList();
      Duration wait = options.waitFor();
      if (wait == null || gone.isEmpty()) {
        return;
      }
      lease.checkHeld();
      context.emit(new ReleaseEvent.Verifying(release, gone, wait));
      Readiness readiness = context.ports.orchestrator().awaitDeleted(gone, wait);
      if (!readiness.isReady()) {
        List<ResourceRef> pending = readiness instanceof Readiness.TimedOut t ? t.pending() : gone;
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
      context.emit(new ReleaseEvent.Verified(release, gone.size()));
    }

    /**
     * Records how far the uninstall got when a delete failed ({@code e} itself when it failed
     * before any delete), for the exception to throw.
     */
    private RuntimeException stopped(Release uninstalling, RuntimeException e) {
      ResourceRef at = failedAt.get();
      if (at == null) {
        return e;
      }
      Release progress =
          withRetained(uninstalling)
              .withOwns(CastIntent.toOwned(remaining))
              .withHooks(hooks.outcomes())
              .withFailure("uninstall stopped at " + at.key() + ": " + e.getMessage())
              .withLease(null);
      String version = stored.version();
      Uninterrupted.run( // recorded on an interrupted thread too
          () -> {
            try {
              context.store.updateRecord(progress, version);
            } catch (RuntimeException saveError) {
              e.addSuppressed(saveError);
              lease.keepIntent(); // the next operation records the interrupted uninstall
            }
          });
      context.emit(new ReleaseEvent.Failed(release, e.getMessage() == null ? "" : e.getMessage()));
      return new UninstallFailedException(progress, at, e);
    }

    /** Keeps the tombstone (or purges the records, then the home namespace if it may). */
    private UninstallResult finish(Release uninstalling, LiveState live) {
      Release tombstone =
          withRetained(uninstalling)
              .withStatus(ReleaseStatus.UNINSTALLED, context.clock.instant())
              .withOwns(List.of())
              .withHooks(hooks.outcomes())
              .withFailure(null)
              .withLease(null);
      if (options.purge()) {
        purge(namespace, name, lease);
        // the home namespace last of all, once its records are gone
        for (EnsuredNamespace e : namespaces) {
          if (e.name().equals(namespace)
              && Leftovers.keeps(e, live.get(e.ref()), latest, true).isEmpty()) {
            deleteNamespace(uninstalling, live, e.ref());
          }
        }
      } else {
        try {
          context.store.updateRecord(tombstone, stored.version());
        } catch (RuntimeException e) {
          lease.keepIntent(); // objects were deleted: the next operation records the uninstall
          throw e;
        }
        context.emit(
            new ReleaseEvent.RecordSaved(release, latest.revision(), ReleaseStatus.UNINSTALLED));
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
      List<String> leftovers = new ArrayList<>();
      keptByPolicy.stream()
          .sorted(ResourceRef.PRUNE_ORDER)
          .map(
              ref ->
                  ref.key()
                      + ": "
                      + (ref.kind().isCrd()
                          ? Planner.RESOURCE_POLICY_KEPT_CRD
                          : Planner.RESOURCE_POLICY_KEPT))
          .forEach(leftovers::add);
      leftovers.addAll(notes);
      leftovers.addAll(Leftovers.keptNamespaces(latest, options));
      leftovers.addAll(Leftovers.statefulSetClaims(latest, deletedInOrder));
      return new UninstallResult(
          tombstone,
          deletedInOrder,
          kept.stream().sorted(ResourceRef.PRUNE_ORDER).toList(),
          options.purge(),
          leftovers);
    }

    /** {@code record} with the objects retained so far, each with its uid where known. */
    private Release withRetained(Release record) {
      List<ResourceRef> refs = List.copyOf(retained);
      List<RetainedUid> uids = new ArrayList<>();
      for (ResourceRef ref : refs) {
        String uid = retainedUids.get(ref);
        if (uid != null) {
          uids.add(new RetainedUid(ref, uid));
        }
      }
      return record.withRetained(refs, uids);
    }

    /** Deletes an ensured namespace the uninstall may delete, on its observation. */
    private void deleteNamespace(Release uninstalling, LiveState live, ResourceRef ref) {
      context.emit(new ReleaseEvent.Started(release, ref, Action.PRUNE));
      try {
        context
            .ports
            .orchestrator()
            .delete(ref, uninstalling.identity(), Precondition.of(live.get(ref)));
      } catch (PreconditionFailedException e) {
        String reason = Fencing.describe(context.ports.orchestrator(), ref, Action.PRUNE, e);
        context.emit(new ReleaseEvent.Fenced(release, ref, Action.PRUNE, reason));
        throw new ReleaseException(reason, e);
      }
      deleted.add(ref);
      context.emit(new ReleaseEvent.Done(release, ref, Action.PRUNE));
    }

    /**
     * Deletes or un-stamps one object the release owns, if the observation shows it still carries
     * the release's stamp; a write the precondition fences fails naming what changed.
     */
    private void uninstallOne(
        Release uninstalling, LiveState live, ResourceRef ref, Consumer<ReleaseEvent> events) {
      Optional<LiveObject> obj = live.get(ref);
      OwnershipStamp stamp = obj.map(LiveObject::stamp).orElse(null);
      if (stamp == null || !stamp.ownedBy(uninstalling.identity())) {
        return;
      }
      boolean byPolicy = uninstalling.keepsByResourcePolicy(ref, obj.get().content());
      boolean keep =
          byPolicy
              || (ref.kind().isVolumeClaim()
                  ? options.keepVolumes() || uninstalling.retainsVolume(ref, obj.get().content())
                  : ref.kind().isCrd() && !options.deleteCrds());
      Action action = keep ? Action.RETAIN : Action.PRUNE;
      events.accept(new ReleaseEvent.Started(release, ref, action));
      boolean removed =
          Fencing.removeOwned(
              context.ports.orchestrator(),
              ref,
              uninstalling.identity(),
              action,
              Precondition.of(obj),
              events,
              release);
      if (removed && keep) {
        // the object a later cast may re-adopt without adopt: this one, not one made at its name
        String uid = obj.get().uid();
        if (uid == null) {
          retainedUids.remove(ref);
        } else {
          retainedUids.put(ref, uid);
        }
        retained.add(ref);
        kept.add(ref);
        if (byPolicy) {
          keptByPolicy.add(ref);
        }
      } else if (removed) {
        deleted.add(ref);
      }
      events.accept(new ReleaseEvent.Done(release, ref, action));
    }
  }

  private static LiveState awaitObservation(
      CompletableFuture<LiveState> observing, String release) {
    try {
      return observing.get();
    } catch (ExecutionException e) {
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
    context.store.deleteRecords(namespace, name);
    lease.forgetOnClose();
  }
}
