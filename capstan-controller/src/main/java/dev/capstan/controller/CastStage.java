package dev.capstan.controller;

import dev.capstan.common.ClusterException;
import dev.capstan.common.Escapes;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.CastSupersededException;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.file.HeapBudget;
import dev.capstan.release.file.InvalidReleaseFileException;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseTooLargeException;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.DeleteRefusal;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.validate.ApiServerLimits;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The cast of one Release whose spec, dependencies, name and claim on its release ({@link
 * Ownership}) were checked, as its account ({@link Engines.Engine}): the manifests from its sources
 * (or its chart rendered, {@link ChartStage}), the API server's limits, the plan; a plan with
 * conflicts is reported and never cast; a plan that changes nothing over a deployed revision ends
 * with no write when the status already says so; otherwise the account's access to every request of
 * the cast is reviewed, and only a plan it may cast whole is cast, exactly as planned. A failure is
 * tried again after {@link RetrySchedule#pause}. A Release whose reading would take more heap than
 * a Release may ({@link ReleaseHeap}) is refused before anything is written.
 */
final class CastStage {
  private final StatusWriter status;
  private final Clock clock;
  private final ReleaseObjects objects;
  private final DeleteGate deletePolicy;
  private final @Nullable ReleaseHeap heap;

  /**
   * A cast stage.
   *
   * @param objects the informer's cache of Releases, asked whether a cast is superseded
   * @param deletePolicy the controller's destructive-change gate (its protected kinds and budget);
   *     each Release adds its own approvals by name ({@code spec.options.approveDeletes})
   * @param heap the heap each Release may take, or null for no bound but the release-wide limits
   */
  CastStage(
      StatusWriter status,
      Clock clock,
      ReleaseObjects objects,
      DeleteGate deletePolicy,
      @Nullable ReleaseHeap heap) {
    this.status = status;
    this.clock = clock;
    this.objects = objects;
    this.deletePolicy = deletePolicy;
    this.heap = heap;
  }

  /**
   * Whether the Release {@code release} was read at has moved on (ARCHITECTURE.md, "Superseding a
   * wait"): its generation changed in the cache, or it is being deleted or gone. Read from the
   * informer's cache, so cheap enough for the cast's health wait to ask every 200 ms.
   */
  private BooleanSupplier superseded(ReleaseResource release) {
    ReleaseKey key = release.key();
    long generation = release.generation();
    return () -> {
      ReleaseResource now = objects.get(key);
      return now == null || now.deleting() || now.generation() != generation;
    };
  }

  /**
   * Casts the Release as its account.
   *
   * @param latest the release's latest revision, as the reconciler read it to check who cast it
   *     ({@link Ownership}), or null when it is not recorded
   */
  ReleaseReconciler.Next cast(
      ReleaseResource release,
      ReleaseRequest request,
      Engines.Engine engine,
      @Nullable Release latest) {
    ReleaseKey key = release.key();
    String name = request.releaseName();
    ReleaseController releases = engine.releases();
    ReleaseInput desired;
    try {
      desired =
          desired(
              key,
              request,
              engine,
              latest != null,
              heap == null ? HeapBudget.UNBOUNDED : heap.budget());
      List<String> limits = ApiServerLimits.check(desired.payloads());
      if (!limits.isEmpty()) {
        throw new InvalidReleaseException(key.namespace() + "/" + name, limits);
      }
    } catch (InvalidReleaseResourceException
        | InvalidReleaseFileException
        | InvalidReleaseException e) {
      status.report(
          release,
          name,
          StatusReport.stalled(
              request.chart() != null ? "InvalidChart" : "InvalidManifests", message(e)));
      return ReleaseReconciler.Next.after(request.interval());
    } catch (ReleaseTooLargeException e) {
      status.report(
          release,
          name,
          StatusReport.stalled(
              ReleaseHeap.REASON,
              heap == null ? message(e) : heap.refusal(key, e, request.chart() != null)));
      return ReleaseReconciler.Next.after(request.interval());
    } catch (ChartException e) {
      return retry(release, request, StatusReport.stalled("ChartFailed", message(e)));
    } catch (ClusterException e) {
      return retry(release, request, clusterFailure(e, request.account(), List.of()));
    }
    ReleaseOptions options =
        request
            .options()
            .withDeleteGate(deletePolicy.approving(request.options().deleteGate().approved()));
    ReleaseSpec spec = desired.spec().withOptions(options).withSource(ReleaseResource.source(key));
    Payloads payloads = desired.payloads();
    String chart = spec.chart() == null ? "" : "; chart " + Escapes.escape(spec.chart().describe());
    Plan plan;
    try {
      plan = releases.plan(new ReleaseInput(spec, payloads));
    } catch (InvalidReleaseException e) {
      status.report(release, name, StatusReport.stalled("InvalidManifests", message(e)));
      return ReleaseReconciler.Next.after(request.interval());
    } catch (ClusterException e) {
      return retry(
          release, request, clusterFailure(e, request.account(), neededFor(e, key, payloads)));
    }
    Map<Action, Integer> counts = plan.counts();
    if (!plan.applyable()) {
      return retry(
          release,
          request,
          StatusReport.stalled("Conflict", message(new ReleaseConflictException(plan)))
              .withCast(null, plan.revision(), counts));
    }
    Optional<DeleteRefusal> refused = DeleteRefusal.of(plan, options.deleteGate());
    if (refused.isPresent()) {
      // nothing changes until the Release approves (or drops) what would go: no retry
      status.report(
          release,
          name,
          StatusReport.stalled("DestructiveChangeRefused", refusedMessage(plan, refused.get()))
              .withCast(null, plan.revision(), counts));
      return ReleaseReconciler.Next.after(request.interval());
    }
    if (plan.changesNothing()) {
      Integer deployed = deployedRevision(release, plan, releases, spec, payloads);
      if (deployed != null) {
        if (!upToDate(release, deployed) || release.reconcileRequested()) {
          status.report(
              release,
              name,
              StatusReport.ready("UpToDate", "revision " + deployed + " is deployed" + chart)
                  .withCast(deployed, deployed, counts));
        }
        return ReleaseReconciler.Next.after(request.interval());
      }
    }
    List<String> denied;
    try {
      denied = engine.denied().apply(plan);
    } catch (ClusterException e) {
      return retry(release, request, clusterFailure(e, request.account(), List.of()));
    }
    if (!denied.isEmpty()) {
      return retry(
          release,
          request,
          StatusReport.stalled(
                  "Forbidden",
                  castAs(request.account())
                      + ", which may not "
                      + String.join("; ", denied)
                      + "; nothing was written")
              .withCast(null, plan.revision(), counts));
    }
    // a retry of a stalled Release keeps its Stalled status while it casts: its status changes
    // with the outcome only, and the time it has been failing (the Stalled condition's) is kept
    ReleaseResource current =
        RetrySchedule.stalledSince(release) != null
            ? release
            : status.report(
                release,
                name,
                StatusReport.reconciling("Progressing", "casting revision " + plan.revision()));
    try {
      CastResult result = releases.cast(plan, payloads, superseded(release));
      int revision = result.release().revision();
      String message = "revision " + revision + ": " + summary(counts) + chart;
      current =
          status.report(
              current,
              name,
              StatusReport.ready("Cast", message).withCast(revision, revision, counts));
      status.done(current, "Cast", message);
      return ReleaseReconciler.Next.after(request.interval());
    } catch (CastFailedException e) {
      int revision = e.result().release().revision();
      if (e.getCause() instanceof CastSupersededException) {
        // the newer generation was queued by its update and is reconciled as soon as this returns
        status.outcome(key, "revision " + revision + " superseded; casting the newer generation");
        return ReleaseReconciler.Next.after(Duration.ZERO);
      }
      return retry(
          current,
          request,
          StatusReport.stalled("CastFailed", message(e)).withCast(null, revision, counts));
    } catch (StalePlanException e) {
      status.outcome(key, "plan moved before the cast; planning again");
      return ReleaseReconciler.Next.after(RetrySchedule.FIRST);
    } catch (ReleaseLockedException e) {
      status.report(current, name, StatusReport.reconciling("Locked", message(e)));
      return ReleaseReconciler.Next.after(
          RetrySchedule.untilUnlocked(e.expiresAt(), request.interval(), clock.instant()));
    } catch (ReleaseConflictException e) {
      return retry(current, request, StatusReport.stalled("Conflict", message(e)));
    } catch (DestructiveChangeRefusedException e) {
      return retry(
          current,
          request,
          StatusReport.stalled("DestructiveChangeRefused", refusedMessage(e.plan(), e.refusal())));
    } catch (RecordFormatException e) {
      return retry(current, request, unreadableRecord(e));
    } catch (ClusterException e) {
      return retry(current, request, clusterFailure(e, request.account(), List.of()));
    }
  }

  /**
   * The report of a release record that cannot be read ({@code UnreadableRecord}): its message
   * names the record, why, and how to mend it.
   */
  static StatusReport unreadableRecord(RecordFormatException e) {
    return StatusReport.stalled("UnreadableRecord", message(e));
  }

  /**
   * What the Release asks to cast: its chart rendered as its account, or its manifests read from
   * its sources.
   *
   * @param upgrade whether the release is recorded (a chart renders as an upgrade)
   * @param budget the heap the Release may take
   */
  private static ReleaseInput desired(
      ReleaseKey key,
      ReleaseRequest request,
      Engines.Engine engine,
      boolean upgrade,
      HeapBudget budget) {
    if (request.chart() == null) {
      ReleaseFile file = ManifestSources.read(key, request, engine.sources(), budget);
      return new ReleaseInput(file.toSpec(), file.payloads());
    }
    dev.capstan.release.file.ChartRelease chart =
        ChartStage.render(key, request, engine, upgrade, budget);
    return java.util.Objects.requireNonNull(request.chart()).noHooks()
        ? chart.inputWithoutHooks()
        : chart.input();
  }

  /** Reports a failure and tries again after the pause the Release's failing time gives. */
  private ReleaseReconciler.Next retry(
      ReleaseResource release, ReleaseRequest request, StatusReport failure) {
    ReleaseResource now = status.report(release, request.releaseName(), failure);
    return ReleaseReconciler.Next.after(
        RetrySchedule.pause(now, request.interval(), clock.instant()));
  }

  /**
   * The report of a request the API server failed: {@code Forbidden} (HTTP 403) naming the account
   * and what needed it, else {@code ApiError}.
   *
   * @param neededFor the release's objects the failed request was for (may be empty)
   */
  static StatusReport clusterFailure(
      ClusterException e, Tenancy.@Nullable Account account, List<String> neededFor) {
    String needed = neededFor.isEmpty() ? "" : " (for " + String.join(", ", neededFor) + ")";
    if (e.status() == 403) {
      return StatusReport.stalled(
          "Forbidden",
          castAs(account) + ", which may not: " + message(e) + needed + "; nothing was written");
    }
    return StatusReport.stalled("ApiError", message(e) + needed);
  }

  /** {@code Release team-a/web is cast as system:serviceaccount:team-a:deployer}. */
  private static String castAs(Tenancy.@Nullable Account account) {
    return account == null
        ? "the release is cast with the controller's own rights"
        : "the release is cast as " + account.user();
  }

  /**
   * The release's objects a failed request was for: those of the kind and namespace it named; for a
   * read of namespaces, the objects in the namespace it named, or else in every namespace but the
   * release's own.
   */
  private static List<String> neededFor(ClusterException e, ReleaseKey key, Payloads payloads) {
    String kind = e.kind();
    if (kind == null) {
      return List.of();
    }
    boolean namespaces = kind.equals("Namespace");
    List<String> out = new ArrayList<>();
    for (Manifest m : payloads.objects()) {
      String ns = m.ref().namespace();
      boolean needs =
          namespaces
              ? (e.name() != null
                  ? ns.equals(e.name())
                  : !ns.isEmpty() && !ns.equals(key.namespace()))
              : m.ref().kind().kind().equals(kind)
                  && (e.namespace() == null || e.namespace().isEmpty() || e.namespace().equals(ns));
      if (needs) {
        out.add(m.ref().toString());
      }
    }
    return out.size() > 5 ? out.subList(0, 5) : out;
  }

  /**
   * The revision deployed now, when the plan's previous revision is it (and, for a chart, records
   * the chart {@code spec} renders: a new chart version or values that render the same objects are
   * still recorded by a cast) and it holds the same hooks as {@code payloads} (a change of hooks
   * alone is cast, so the revision records them); else null.
   */
  private static @Nullable Integer deployedRevision(
      ReleaseResource release,
      Plan plan,
      ReleaseController engine,
      ReleaseSpec spec,
      Payloads payloads) {
    Integer previous = plan.previousRevision();
    if (previous == null) {
      return null;
    }
    if (spec.chart() == null && upToDate(release, previous)) {
      return previous;
    }
    Optional<Release> latest = engine.get(plan.namespace(), plan.name());
    return latest.isPresent()
            && latest.get().revision() == previous
            && latest.get().status() == ReleaseStatus.DEPLOYED
            && java.util.Objects.equals(latest.get().chart(), spec.chart())
            // hooks changed alone: cast, so the revision records them (and runs the upgrade's)
            && latest.get().payloads().hooks().equals(payloads.hooks())
        ? previous
        : null;
  }

  /** Whether the status already says revision {@code revision} is deployed, for this generation. */
  private static boolean upToDate(ReleaseResource release, int revision) {
    return release.ready()
        && release.status().get("lastAppliedRevision") instanceof Number n
        && n.longValue() == revision;
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

  /**
   * {@code the plan deletes 1 object(s) the delete gate keeps; nothing was written:
   * PersistentVolumeClaim/shop/data (prune): PersistentVolumeClaim is a protected kind; approve
   * each by name in spec.options.approveDeletes}.
   */
  static String refusedMessage(Plan plan, DeleteRefusal refusal) {
    return "the plan for revision "
        + plan.revision()
        + " deletes "
        + refusal.refused().size()
        + " object(s) the delete gate keeps; nothing was written: "
        + String.join("; ", refusal.reasons())
        + "; approve each by name in spec.options.approveDeletes";
  }

  /** An exception's message (Capstan's exceptions always have one). */
  private static String message(Throwable e) {
    return String.valueOf(e.getMessage());
  }
}
