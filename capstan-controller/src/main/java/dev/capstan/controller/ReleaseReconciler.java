package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.HookRefusedException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.ReleaseTooLargeException;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.UninstallOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One reconcile of one Release, as the cache holds it: uninstall when it is being deleted (only a
 * release whose latest revision it cast: {@link LetGo}); else the spec, suspension, a release name
 * another Release casts, a {@code dependsOn} cycle, unready dependencies, a release recorded as
 * another caster's, the finalizer (so a Release that may not cast gets none), the release cast
 * under a former {@code spec.releaseName} let go of ({@link RenameStage}), and then the cast
 * ({@link CastStage}). Every outcome is reported in the Release's status ({@link StatusWriter});
 * what comes next is the returned {@link Next}. Failures of the API server are outcomes too (a
 * status and an Event), never exceptions, but a failure to write the status itself.
 */
final class ReleaseReconciler {
  /** How often a Release waiting for a dependency looks again, at most. */
  static final Duration DEPENDENCY_POLL = Duration.ofSeconds(30);

  /** The reason of a Release whose reconcile overflowed the stack ({@link #reportTooComplex}). */
  static final String TOO_COMPLEX = "TooComplex";

  /** The message of a Release whose reconcile overflowed the stack. */
  static final String TOO_COMPLEX_MESSAGE =
      "the Release could not be reconciled: a value of its spec, manifests or chart is too long"
          + " or too deeply nested to check (the check overflowed the stack)";

  private final ReleaseObjects objects;
  private final Engines engines;
  private final Tenancy tenancy;
  private final Clock clock;
  private final StatusWriter status;
  private final RenameStage renames;
  private final CastStage casts;
  private final @Nullable ReleaseHeap heap;

  /**
   * A reconciler.
   *
   * @param objects the Release resources
   * @param engines the engines of each account
   * @param tenancy who casts a Release, and which references it may make
   * @param clock the time of condition transitions and retries
   * @param listener hears of each outcome
   */
  ReleaseReconciler(
      ReleaseObjects objects,
      Engines engines,
      Tenancy tenancy,
      Clock clock,
      ControllerListener listener) {
    this(objects, engines, tenancy, clock, listener, DeleteGate.defaults());
  }

  /**
   * A reconciler with the controller's destructive-change gate.
   *
   * @param deletePolicy the protected kinds and delete budget of every Release's casts
   */
  ReleaseReconciler(
      ReleaseObjects objects,
      Engines engines,
      Tenancy tenancy,
      Clock clock,
      ControllerListener listener,
      DeleteGate deletePolicy) {
    this(objects, engines, tenancy, clock, listener, deletePolicy, null);
  }

  /**
   * A reconciler with the controller's destructive-change gate and its bound on each Release's
   * heap.
   *
   * @param deletePolicy the protected kinds and delete budget of every Release's casts
   * @param heap the heap each Release may take ({@link ReleaseHeap}), or null for no bound but the
   *     release-wide limits
   */
  ReleaseReconciler(
      ReleaseObjects objects,
      Engines engines,
      Tenancy tenancy,
      Clock clock,
      ControllerListener listener,
      DeleteGate deletePolicy,
      @Nullable ReleaseHeap heap) {
    this.objects = requireNonNull(objects, "objects");
    this.engines = requireNonNull(engines, "engines");
    this.tenancy = requireNonNull(tenancy, "tenancy");
    this.clock = requireNonNull(clock, "clock");
    this.status = new StatusWriter(objects, clock, listener);
    this.renames = new RenameStage(status, clock);
    this.casts =
        new CastStage(status, clock, objects, requireNonNull(deletePolicy, "deletePolicy"), heap);
    this.heap = heap;
  }

  /** The budget a Release's spec is read within: its share of the heap, or none. */
  private HeapBudget budget() {
    return heap == null ? HeapBudget.UNBOUNDED : heap.budget();
  }

  /**
   * What the loop does with a Release after a reconcile.
   *
   * @param after look at it again after this long; null: not until it or a source changes
   */
  record Next(@Nullable Duration after) {
    static final Next DONE = new Next(null);

    static Next after(Duration after) {
      return new Next(after);
    }
  }

  /**
   * Reconciles the Release {@code key} as the cache holds it.
   *
   * @throws ClusterException when the Release's own status or finalizer cannot be written (the loop
   *     retries)
   */
  Next reconcile(ReleaseKey key) {
    ReleaseResource cached = objects.get(key);
    if (cached == null) {
      status.forget(key);
      return Next.DONE;
    }
    ReleaseResource release = status.current(cached);
    if (release.deleting()) {
      return uninstall(release);
    }
    ReleaseRequest request;
    try {
      request = ReleaseRequest.read(release, tenancy, budget());
    } catch (InvalidReleaseResourceException e) {
      status.report(
          release, null, StatusReport.stalled("InvalidSpec", String.valueOf(e.getMessage())));
      return Next.DONE;
    } catch (ReleaseTooLargeException e) {
      status.report(
          release,
          null,
          StatusReport.stalled(
              ReleaseHeap.REASON,
              heap == null ? String.valueOf(e.getMessage()) : heap.refusal(key, e, false)));
      return Next.DONE;
    }
    if (request.suspend()) {
      status.suspended(release);
      return Next.DONE;
    }
    ReleaseKey taken = nameTakenBy(release, request.releaseName());
    if (taken != null) {
      status.report(
          release,
          null,
          StatusReport.stalled(
              "NameTaken",
              "release name " + request.releaseName() + " is cast by Release " + taken));
      return Next.after(request.interval());
    }
    List<ReleaseKey> cycle = cycle(key);
    if (!cycle.isEmpty()) {
      status.report(
          release,
          null,
          StatusReport.stalled(
              "DependencyCycle",
              "dependsOn cycle: "
                  + cycle.stream().map(ReleaseKey::toString).collect(Collectors.joining(" -> "))));
      return Next.DONE;
    }
    for (ReleaseKey dependency : request.dependsOn()) {
      ReleaseResource d = objects.get(dependency);
      if (d == null || !d.ready()) {
        status.report(
            release,
            null,
            StatusReport.reconciling(
                "DependencyNotReady",
                "waiting for Release "
                    + dependency
                    + (d == null ? ", which does not exist" : " to be Ready")));
        Duration poll = request.interval();
        return Next.after(poll.compareTo(DEPENDENCY_POLL) < 0 ? poll : DEPENDENCY_POLL);
      }
    }
    Engines.Engine engine = engines.of(request.account(), request.maxHistory());
    Release latest;
    String refusal;
    try {
      latest = engine.releases().get(key.namespace(), request.releaseName()).orElse(null);
      refusal =
          Ownership.castRefusal(
              key, latest, () -> engine.releases().history(key.namespace(), request.releaseName()));
    } catch (ClusterException e) {
      ReleaseResource now =
          status.report(release, null, CastStage.clusterFailure(e, request.account(), List.of()));
      return Next.after(RetrySchedule.pause(now, request.interval(), clock.instant()));
    } catch (RecordFormatException e) {
      ReleaseResource now = status.report(release, null, CastStage.unreadableRecord(e));
      return Next.after(RetrySchedule.pause(now, request.interval(), clock.instant()));
    }
    if (refusal != null) {
      status.report(release, null, StatusReport.stalled("NameTaken", refusal));
      return Next.after(request.interval());
    }
    if (!release.hasFinalizer()) {
      objects.addFinalizer(release);
    }
    Next renaming = renames.letGoOfFormer(release, request, engine);
    if (renaming != null) {
      return renaming;
    }
    return casts.cast(release, request, engine, latest);
  }

  /**
   * Reports the Release {@code key} Stalled after its reconcile overflowed the stack: a value of
   * its spec, manifests or chart nested or repeated too deep for a check that recurses. The loop
   * calls it once the stack has unwound.
   *
   * @throws ClusterException when the status cannot be written (the loop retries)
   */
  void reportTooComplex(ReleaseKey key) {
    ReleaseResource cached = objects.get(key);
    if (cached != null) {
      status.report(
          status.current(cached), null, StatusReport.stalled(TOO_COMPLEX, TOO_COMPLEX_MESSAGE));
    }
  }

  /** The Release as the cache holds it, with the status written since; null when it is gone. */
  @Nullable ReleaseResource current(ReleaseKey key) {
    ReleaseResource cached = objects.get(key);
    return cached == null ? null : status.current(cached);
  }

  /**
   * Uninstalls a deleted Release's releases as its account, then lets the Release go: the release
   * its status names (what it cast; a rename may be pending, {@link RenameStage}) and the one its
   * spec names, each only when its latest revision names this Release (else it is left installed
   * and a Warning Event says so, {@link LetGo}).
   */
  private Next uninstall(ReleaseResource release) {
    if (!release.hasFinalizer()) {
      return Next.DONE;
    }
    UninstallOptions options = UninstallOptions.defaults();
    int history = ReleaseRequest.DEFAULT_MAX_HISTORY;
    String name = release.releaseName();
    Duration interval = ReleaseRequest.DEFAULT_INTERVAL;
    Tenancy.Account account;
    try {
      ReleaseRequest request = ReleaseRequest.read(release, tenancy, budget());
      options = request.uninstall();
      history = request.maxHistory();
      name = request.releaseName();
      interval = request.interval();
      account = request.account();
    } catch (InvalidReleaseResourceException | ReleaseTooLargeException e) {
      // a spec that is not valid (or too large to read) is uninstalled with the defaults: nothing
      // is kept that would not be kept anyway (volumes by their reclaim policy, CRDs); as the
      // account it names, if it names a valid one, else the default account
      Object named = release.spec().get("serviceAccountName");
      account =
          tenancy.account(
              release.key().namespace(),
              named instanceof String s && Tenancy.validAccount(s) ? s : null);
      if (account == null && tenancy.requireServiceAccount()) {
        status.report(
            release,
            null,
            StatusReport.stalled(
                "UninstallFailed",
                "the release cannot be uninstalled: the spec names no valid service account to"
                    + " uninstall it as (--require-service-account); set"
                    + " spec.serviceAccountName, or remove the finalizer "
                    + ReleaseResource.FINALIZER
                    + " to let the Release go without uninstalling"));
        return Next.DONE;
      }
    }
    List<String> names = new ArrayList<>();
    String former = RenameStage.formerName(release, name);
    if (former != null) {
      names.add(former);
    }
    names.add(name);
    String uninstalling = name;
    try {
      ReleaseController releases = engines.of(account, history).releases();
      boolean recorded = false;
      for (String n : names) {
        uninstalling = n;
        LetGo.Outcome outcome = LetGo.release(releases, release.key(), n, options, account != null);
        String which = n.equals(name) ? "" : "release " + n + " ";
        if (outcome instanceof LetGo.Uninstalled u) {
          status.done(release, "Uninstalled", which + "uninstalled: " + LetGo.summary(u.result()));
        } else if (outcome instanceof LetGo.LeftInstalled l) {
          status.warning(release, "UninstallSkipped", l.why());
        }
        recorded |= !(outcome instanceof LetGo.NotRecorded);
      }
      if (!recorded) {
        status.outcome(release.key(), "deleted before its first cast");
      }
    } catch (ReleaseLockedException e) {
      Duration wait = Duration.between(clock.instant(), e.expiresAt());
      return Next.after(wait.compareTo(RetrySchedule.FIRST) > 0 ? wait : RetrySchedule.FIRST);
    } catch (UninstallFailedException
        | StaleRecordException
        | RecordFormatException
        | HookRefusedException
        | ClusterException e) {
      String message = String.valueOf(e.getMessage());
      if (e instanceof HookRefusedException) {
        message +=
            LetGo.ownRightsAdvice(release.key().namespace(), uninstalling)
                + ", and the Release goes";
      }
      ReleaseResource now =
          status.report(
              release,
              null,
              e instanceof ClusterException c
                  ? CastStage.clusterFailure(c, account, List.of())
                  : StatusReport.stalled("UninstallFailed", message));
      return Next.after(RetrySchedule.pause(now, interval, clock.instant()));
    }
    objects.removeFinalizer(release);
    return Next.DONE;
  }

  /**
   * The Release that already casts {@code releaseName} in the same namespace, when it is not this
   * one: one whose status names the release and has cast it, else the first by name.
   */
  private @Nullable ReleaseKey nameTakenBy(ReleaseResource release, String releaseName) {
    List<ReleaseResource> same = new ArrayList<>();
    for (ReleaseResource other : objects.list()) {
      if (other.key().namespace().equals(release.key().namespace())
          && !other.deleting()
          && other.releaseName().equals(releaseName)) {
        same.add(other);
      }
    }
    if (same.size() < 2) {
      return null;
    }
    ReleaseResource owner =
        same.stream()
            .filter(
                r ->
                    releaseName.equals(r.status().get("releaseName"))
                        && r.status().get("lastAppliedRevision") != null)
            .findFirst()
            .orElseGet(
                () ->
                    same.stream()
                        .min((a, b) -> a.key().name().compareTo(b.key().name()))
                        .orElseThrow());
    return owner.key().equals(release.key()) ? null : owner.key();
  }

  /**
   * A dependency cycle through {@code start}, as the path from it back to it; empty when there is
   * none. Follows {@code dependsOn} through the Releases the cache holds.
   */
  List<ReleaseKey> cycle(ReleaseKey start) {
    List<ReleaseKey> path = new ArrayList<>();
    path.add(start);
    return walk(start, start, path, new HashSet<>()) ? path : List.of();
  }

  private boolean walk(
      ReleaseKey start, ReleaseKey at, List<ReleaseKey> path, Set<ReleaseKey> seen) {
    ReleaseResource r = objects.get(at);
    if (r == null || !seen.add(at)) {
      return false;
    }
    for (ReleaseKey next : r.dependsOn()) {
      path.add(next);
      if (next.equals(start) || walk(start, next, path, seen)) {
        return true;
      }
      path.remove(path.size() - 1);
    }
    return false;
  }
}
