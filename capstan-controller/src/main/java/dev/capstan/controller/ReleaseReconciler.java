package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.file.InvalidReleaseFileException;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import dev.capstan.release.validate.ApiServerLimits;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One reconcile of one {@code Release}: reads it, plans its release, casts the plan when it changes
 * something, and reports the outcome in the Release's status; on deletion, uninstalls and removes
 * the finalizer. Writes nothing when the plan changes nothing and the status already says so.
 * Thread-safe: the work queue never gives one Release to two workers at once, and the engine fences
 * every cast with the release's lease.
 */
final class ReleaseReconciler {
  /** How long a Release waits for a dependency at most before it is looked at again. */
  static final Duration DEPENDENCY_POLL = Duration.ofSeconds(30);

  private final ReleaseObjects objects;
  private final ManifestSources sources;
  private final IntFunction<ReleaseController> controllers;
  private final Clock clock;
  private final ControllerListener listener;

  /**
   * The status this reconciler last wrote to each Release, by uid and generation: newer than the
   * cache until the cache hears of the write, so a reconcile right after a write sees it.
   */
  private final Map<ReleaseKey, Written> written = new java.util.concurrent.ConcurrentHashMap<>();

  private record Written(String uid, long generation, Map<String, Object> status) {}

  /**
   * A reconciler.
   *
   * @param objects the Release resources
   * @param sources the ConfigMaps and Secrets manifests are read from
   * @param controllers the engine, by the number of revisions it keeps
   * @param clock the time of condition transitions
   * @param listener hears of each outcome
   */
  ReleaseReconciler(
      ReleaseObjects objects,
      ManifestSources sources,
      IntFunction<ReleaseController> controllers,
      Clock clock,
      ControllerListener listener) {
    this.objects = requireNonNull(objects, "objects");
    this.sources = requireNonNull(sources, "sources");
    this.controllers = requireNonNull(controllers, "controllers");
    this.clock = requireNonNull(clock, "clock");
    this.listener = requireNonNull(listener, "listener");
  }

  /**
   * What the loop does with a Release after a reconcile.
   *
   * @param after look at it again after this long; null: not until it or a source changes
   * @param retry whether this was a failure to retry with backoff (capped at {@code after})
   */
  record Next(@Nullable Duration after, boolean retry) {
    static final Next DONE = new Next(null, false);

    static Next after(Duration after) {
      return new Next(after, false);
    }

    static Next retry(Duration atMost) {
      return new Next(atMost, true);
    }
  }

  /**
   * Reconciles the Release {@code key} as the cache holds it.
   *
   * @throws dev.capstan.common.ClusterException when the API server fails (the loop retries)
   */
  Next reconcile(ReleaseKey key) {
    ReleaseResource cached = objects.get(key);
    if (cached == null) {
      written.remove(key);
      return Next.DONE;
    }
    Written mine = written.get(key);
    ReleaseResource release =
        mine != null && mine.uid().equals(cached.uid()) && mine.generation() == cached.generation()
            ? cached.withStatus(mine.status())
            : cached;
    if (release.deleting()) {
      return uninstall(release);
    }
    ReleaseRequest request;
    try {
      request = ReleaseRequest.read(release);
    } catch (InvalidReleaseResourceException e) {
      report(release, release.releaseName(), StatusReport.stalled("InvalidSpec", message(e)));
      return Next.DONE;
    }
    if (request.suspend()) {
      listener.outcome(key, "suspended");
      return Next.DONE;
    }
    if (!release.hasFinalizer()) {
      objects.addFinalizer(release);
    }
    ReleaseKey taken = nameTakenBy(release, request.releaseName());
    if (taken != null) {
      report(
          release,
          request.releaseName(),
          StatusReport.stalled(
              "NameTaken",
              "release name " + request.releaseName() + " is cast by Release " + taken));
      return Next.after(request.interval());
    }
    List<ReleaseKey> cycle = cycle(key);
    if (!cycle.isEmpty()) {
      report(
          release,
          request.releaseName(),
          StatusReport.stalled(
              "DependencyCycle",
              "dependsOn cycle: "
                  + cycle.stream().map(ReleaseKey::toString).collect(Collectors.joining(" -> "))));
      return Next.DONE;
    }
    for (ReleaseKey dependency : request.dependsOn()) {
      ReleaseResource d = objects.get(dependency);
      if (d == null || !d.ready()) {
        report(
            release,
            request.releaseName(),
            StatusReport.reconciling(
                "DependencyNotReady",
                "waiting for Release "
                    + dependency
                    + (d == null ? ", which does not exist" : " to be Ready")));
        return Next.after(min(request.interval(), DEPENDENCY_POLL));
      }
    }
    return cast(release, request);
  }

  private Next cast(ReleaseResource release, ReleaseRequest request) {
    ReleaseKey key = release.key();
    String name = request.releaseName();
    ReleaseFile file;
    try {
      file = ManifestSources.read(key, request, sources);
      List<String> limits = ApiServerLimits.check(file.payloads());
      if (!limits.isEmpty()) {
        throw new InvalidReleaseException(key.namespace() + "/" + name, limits);
      }
    } catch (InvalidReleaseResourceException
        | InvalidReleaseFileException
        | InvalidReleaseException e) {
      report(release, name, StatusReport.stalled("InvalidManifests", message(e)));
      return Next.after(request.interval());
    }
    ReleaseSpec spec = file.toSpec().withOptions(request.options());
    ReleaseController engine = controllers.apply(request.maxHistory());
    Plan plan;
    try {
      plan = engine.plan(new ReleaseInput(spec, file.payloads()));
    } catch (InvalidReleaseException e) {
      report(release, name, StatusReport.stalled("InvalidManifests", message(e)));
      return Next.after(request.interval());
    }
    Map<Action, Integer> counts = plan.counts();
    if (!plan.applyable()) {
      boolean changed =
          report(
              release,
              name,
              StatusReport.stalled("Conflict", message(new ReleaseConflictException(plan)))
                  .withCast(null, plan.revision(), counts));
      if (changed) {
        objects.event(release, true, "Conflict", StatusReport.oneLine(conflicts(plan)));
      }
      return Next.retry(request.interval());
    }
    if (plan.changesNothing()) {
      Integer deployed = deployedRevision(release, plan, engine);
      if (deployed != null) {
        if (!upToDate(release, deployed)) {
          report(
              release,
              name,
              StatusReport.ready("UpToDate", "revision " + deployed + " is deployed")
                  .withCast(deployed, deployed, counts));
        }
        return Next.after(request.interval());
      }
    }
    ReleaseResource current =
        reportAndGet(
            release,
            name,
            StatusReport.reconciling("Progressing", "casting revision " + plan.revision()));
    try {
      CastResult result = engine.cast(plan, file.payloads());
      int revision = result.release().revision();
      String message = "revision " + revision + ": " + summary(counts);
      report(
          current, name, StatusReport.ready("Cast", message).withCast(revision, revision, counts));
      objects.event(current, false, "Cast", message);
      listener.outcome(key, message);
      return Next.after(request.interval());
    } catch (CastFailedException e) {
      int revision = e.result().release().revision();
      report(
          current,
          name,
          StatusReport.stalled("CastFailed", message(e)).withCast(null, revision, counts));
      objects.event(current, true, "CastFailed", StatusReport.oneLine(message(e)));
      listener.outcome(
          key, "revision " + revision + " failed: " + StatusReport.oneLine(message(e)));
      return Next.retry(request.interval());
    } catch (StalePlanException e) {
      listener.outcome(key, "plan moved before the cast; planning again");
      return Next.retry(request.interval());
    } catch (ReleaseLockedException e) {
      report(current, name, StatusReport.reconciling("Locked", message(e)));
      Duration wait = Duration.between(clock.instant(), e.expiresAt());
      return Next.after(min(request.interval(), max(wait, Duration.ofSeconds(1))));
    } catch (ReleaseConflictException e) {
      report(current, name, StatusReport.stalled("Conflict", message(e)));
      return Next.retry(request.interval());
    }
  }

  /** Uninstalls a deleted Release's release, then lets the Release go. */
  private Next uninstall(ReleaseResource release) {
    if (!release.hasFinalizer()) {
      return Next.DONE;
    }
    UninstallOptions options = UninstallOptions.defaults();
    int history = ReleaseRequest.DEFAULT_MAX_HISTORY;
    String name = release.releaseName();
    try {
      ReleaseRequest request = ReleaseRequest.read(release);
      options = request.uninstall();
      history = request.maxHistory();
      name = request.releaseName();
    } catch (InvalidReleaseResourceException e) {
      // a spec that is not valid is uninstalled with the defaults: nothing is kept that would
      // not be kept anyway (volumes by their reclaim policy, CRDs)
    }
    try {
      UninstallResult result =
          controllers.apply(history).uninstall(release.key().namespace(), name, options);
      String message =
          "uninstalled: "
              + result.deleted().size()
              + " deleted, "
              + result.retained().size()
              + " kept"
              + (result.purged() ? ", records purged" : "");
      objects.event(release, false, "Uninstalled", message);
      listener.outcome(release.key(), message);
    } catch (ReleaseNotFoundException e) {
      listener.outcome(release.key(), "deleted before its first cast");
    } catch (ReleaseLockedException e) {
      Duration wait = Duration.between(clock.instant(), e.expiresAt());
      return Next.after(max(wait, Duration.ofSeconds(1)));
    } catch (UninstallFailedException e) {
      report(release, name, StatusReport.stalled("UninstallFailed", message(e)));
      objects.event(release, true, "UninstallFailed", StatusReport.oneLine(message(e)));
      return Next.retry(ReleaseRequest.DEFAULT_INTERVAL);
    }
    objects.removeFinalizer(release);
    return Next.DONE;
  }

  /** The revision deployed now, when the plan's previous revision is it; else null. */
  private static @Nullable Integer deployedRevision(
      ReleaseResource release, Plan plan, ReleaseController engine) {
    Integer previous = plan.previousRevision();
    if (previous == null) {
      return null;
    }
    if (upToDate(release, previous)) {
      return previous;
    }
    Optional<Release> latest = engine.get(plan.namespace(), plan.name());
    return latest.isPresent()
            && latest.get().revision() == previous
            && latest.get().status() == ReleaseStatus.DEPLOYED
        ? previous
        : null;
  }

  /** Whether the status already says revision {@code revision} is deployed, for this generation. */
  private static boolean upToDate(ReleaseResource release, int revision) {
    return release.ready()
        && Long.valueOf(revision).equals(asLong(release.status().get("lastAppliedRevision")));
  }

  private static @Nullable Long asLong(@Nullable Object o) {
    return o instanceof Number n ? n.longValue() : null;
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

  /** Writes the status a report gives, unless the Release already has it; says whether it wrote. */
  private boolean report(ReleaseResource release, String releaseName, StatusReport report) {
    Map<String, Object> status = report.status(release, releaseName, clock.instant());
    if (StatusReport.same(release, status)) {
      return false;
    }
    write(release, status);
    if (report.state() != StatusReport.State.READY) {
      listener.outcome(release.key(), report.reason() + ": " + report.message());
    }
    return true;
  }

  private ReleaseResource reportAndGet(
      ReleaseResource release, String releaseName, StatusReport report) {
    Map<String, Object> status = report.status(release, releaseName, clock.instant());
    if (!StatusReport.same(release, status)) {
      write(release, status);
    }
    return release.withStatus(status);
  }

  private void write(ReleaseResource release, Map<String, Object> status) {
    objects.writeStatus(release, status);
    written.put(release.key(), new Written(release.uid(), release.generation(), status));
  }

  /**
   * {@code 2 created, 1 updated} (the writes and deletes of a cast), or {@code nothing changed}.
   */
  static String summary(Map<Action, Integer> counts) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Integer> e : StatusReport.counts(counts).entrySet()) {
      if (e.getValue() > 0 && !e.getKey().equals("unchanged")) {
        parts.add(e.getValue() + " " + e.getKey());
      }
    }
    return parts.isEmpty() ? "nothing changed" : String.join(", ", parts);
  }

  private static String conflicts(Plan plan) {
    return plan.conflicts().stream()
        .map(c -> c.ref().key() + ": " + c.reason())
        .collect(Collectors.joining("; "));
  }

  /** An exception's message (Capstan's exceptions always have one). */
  private static String message(Throwable e) {
    return String.valueOf(e.getMessage());
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
