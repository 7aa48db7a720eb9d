package dev.capstan.update.apply;

import dev.capstan.common.health.Condition;
import dev.capstan.update.UpdateException;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.catalog.MetadataKeys;
import dev.capstan.update.cluster.ContainerPatch;
import dev.capstan.update.cluster.CrdState;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.event.EventLog;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.internal.GoDuration;
import dev.capstan.update.manifest.CrdDocument;
import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.UpdateBlockedException;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadResult;
import dev.capstan.update.result.WorkloadStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/** Applies an {@link UpdatePlan} through a {@link PlatformCluster}; see the package docs. */
public final class UpdateApplier {

  /** Logs every event of an apply (see {@link EventLog}). */
  private static final UpdateListener LOG =
      EventLog.on(LoggerFactory.getLogger(UpdateApplier.class));

  /** CRDs get at least this long to become established, whatever the rollout timeout. */
  static final Duration MIN_CRD_TIMEOUT = Duration.ofMinutes(2);

  private UpdateApplier() {}

  /**
   * Applies a plan: CRDs first, then one workload at a time, with rollback on failure when asked.
   *
   * @param cluster the cluster
   * @param plan the plan; it must have no blocked rows or CRDs
   * @param options timeout, rollback, waiting and progress
   * @return every CRD's and workload's outcome; {@link UpdateResult#failed()} tells whether
   *     anything failed
   * @throws UpdateBlockedException when the plan has blocked rows or CRDs (nothing is written)
   */
  public static UpdateResult apply(PlatformCluster cluster, UpdatePlan plan, ApplyOptions options) {
    if (plan.isBlocked()) {
      throw new UpdateBlockedException(plan);
    }
    List<Group> groups = groupByWorkload(plan);
    UpdateEvent.UpdateStarted started =
        new UpdateEvent.UpdateStarted(
            plan.targetVersion(), groups.size(), plan.applyCrds() ? plan.crds().size() : 0);
    UpdateListener events = UpdateListener.all(List.of(LOG, options.listener())).begin(started);
    Instant start = options.clock().instant();
    events.onEvent(started);
    try {
      UpdateResult result = apply(cluster, plan, options.withListener(events), groups);
      events.onEvent(
          new UpdateEvent.UpdateFinished(
              plan.targetVersion(),
              UpdateEvent.Outcome.of(result),
              result,
              Duration.between(start, options.clock().instant()),
              null));
      return result;
    } catch (RuntimeException | Error e) {
      events.onEvent(
          new UpdateEvent.UpdateFinished(
              plan.targetVersion(),
              UpdateEvent.Outcome.ERROR,
              null,
              Duration.between(start, options.clock().instant()),
              String.valueOf(e.getMessage())));
      throw e;
    }
  }

  private static UpdateResult apply(
      PlatformCluster cluster, UpdatePlan plan, ApplyOptions options, List<Group> groups) {
    List<WorkloadResult> results = new ArrayList<>();
    for (Group g : groups) {
      results.add(WorkloadResult.notAttempted(g.workload, g.components(), g.recovery()));
    }
    List<CrdResult> crds = new ArrayList<>();
    if (plan.applyCrds() && !applyCrds(cluster, plan, options, crds)) {
      return new UpdateResult(crds, results, true);
    }
    RolloutWaiter waiter =
        options.waiter() != null
            ? options.waiter()
            : RolloutWaiter.polling(
                cluster, options.clock(), options.sleeper(), options.pollInterval());
    List<Integer> touched = new ArrayList<>();
    boolean failed = false;
    for (int i = 0; i < groups.size() && !failed; i++) {
      final int index = i;
      WorkloadResult r =
          rollOut(
              cluster,
              waiter,
              groups.get(i),
              plan,
              options,
              results.get(i),
              () -> touched.add(index));
      results.set(i, r);
      failed = r.status() == WorkloadStatus.FAILED;
    }
    if (failed && options.rollbackOnFailure()) {
      for (int t = touched.size() - 1; t >= 0; t--) {
        int i = touched.get(t);
        results.set(
            i, rollBack(cluster, waiter, groups.get(i), plan.metadata(), results.get(i), options));
      }
    }
    return new UpdateResult(crds, results, failed);
  }

  /**
   * Writes the platform version on every installed Deployment of a built, non-env-var component:
   * the part-of and component labels and the platform-version annotation, nothing else (a
   * metadata-only patch). Used by installers so the planner can tell the version of images tagged
   * {@code latest}.
   *
   * @param cluster the cluster
   * @param catalog the host's catalog
   * @param version the installed platform version
   * @return the Deployments stamped, in catalog order
   */
  public static List<Workload> stampInstalledVersion(
      PlatformCluster cluster, Catalog catalog, String version) {
    MetadataKeys keys = catalog.metadata();
    Map<Workload, DeploymentPatch> patches = new LinkedHashMap<>();
    for (CatalogComponent c : catalog.components()) {
      Workload w = c.workload();
      if (w == null || !c.built() || c.usesEnvVar() || patches.containsKey(w)) {
        continue;
      }
      if (cluster.deployment(w).isPresent()) {
        patches.put(
            w,
            new DeploymentPatch(
                w,
                List.of(),
                Map.of(MetadataKeys.PART_OF_LABEL, keys.partOf(), keys.componentLabel(), c.name()),
                Map.of(keys.versionAnnotation(), version)));
      }
    }
    patches.values().forEach(cluster::patch);
    return List.copyOf(patches.keySet());
  }

  private static boolean applyCrds(
      PlatformCluster cluster, UpdatePlan plan, ApplyOptions options, List<CrdResult> out) {
    Duration timeout =
        options.timeout().compareTo(MIN_CRD_TIMEOUT) < 0 ? MIN_CRD_TIMEOUT : options.timeout();
    for (CrdDocument doc : plan.crds()) {
      String action = "";
      try {
        Optional<CrdState> live = cluster.crd(doc.name());
        if (live.isPresent() && doc.specEquals(live.get().spec())) {
          out.add(CrdResult.of(doc.name(), CrdResult.SKIPPED));
          continue;
        }
        action = cluster.applyCrd(doc.name(), doc.document());
        options.listener().onEvent(new UpdateEvent.CrdApplied(doc.name(), action));
        awaitEstablished(cluster, doc.name(), timeout, options);
        options.listener().onEvent(new UpdateEvent.CrdEstablished(doc.name()));
        out.add(CrdResult.of(doc.name(), action));
      } catch (RuntimeException e) {
        out.add(CrdResult.failed(doc.name(), action, String.valueOf(e.getMessage())));
        return false;
      }
    }
    return true;
  }

  private static void awaitEstablished(
      PlatformCluster cluster, String name, Duration timeout, ApplyOptions options) {
    Instant deadline = options.clock().instant().plus(timeout);
    while (true) {
      Optional<CrdState> crd = cluster.crd(name);
      Optional<Condition> names = crd.flatMap(c -> c.condition("NamesAccepted"));
      if (names.isPresent() && names.get().fails()) {
        throw new UpdateException(
            "NamesAccepted=False: " + names.get().reason() + ": " + names.get().message());
      }
      boolean established =
          crd.flatMap(c -> c.condition("Established")).map(Condition::holds).orElse(false);
      if (established && names.map(Condition::holds).orElse(false)) {
        return;
      }
      Duration left = Duration.between(options.clock().instant(), deadline);
      if (left.isNegative() || left.isZero()) {
        throw new UpdateException(
            "timed out after "
                + GoDuration.format(timeout)
                + " waiting for Established and NamesAccepted");
      }
      Duration pause = left.compareTo(options.pollInterval()) < 0 ? left : options.pollInterval();
      Polling.pause(options.sleeper(), pause, "CustomResourceDefinition " + name);
    }
  }

  /** Rolls one workload out: skipped, updated, or failed with the reason. */
  private static WorkloadResult rollOut(
      PlatformCluster cluster,
      RolloutWaiter waiter,
      Group g,
      UpdatePlan plan,
      ApplyOptions options,
      WorkloadResult result,
      Runnable touch) {
    Optional<DeploymentState> live;
    try {
      live = cluster.deployment(g.workload);
    } catch (RuntimeException e) {
      return failed(result, "get: " + e.getMessage(), options);
    }
    if (live.isEmpty()) {
      return failed(result, "get: deployment " + g.workload.key() + " not found", options);
    }
    DeploymentPatch patch = g.forward(plan);
    if (patch.satisfiedBy(live.get())) {
      options.listener().onEvent(new UpdateEvent.WorkloadSkipped(g.workload));
      return result.with(WorkloadStatus.SKIPPED);
    }
    touch.run();
    try {
      cluster.patch(patch);
    } catch (RuntimeException e) {
      return failed(result, "patch: " + e.getMessage(), options);
    }
    options.listener().onEvent(new UpdateEvent.WorkloadPatched(g.workload, g.components()));
    try {
      waiter.await(g.workload, options.timeout());
    } catch (RuntimeException e) {
      return failed(
          result,
          "rollout did not complete within "
              + GoDuration.format(options.timeout())
              + ": "
              + e.getMessage(),
          options);
    }
    options.listener().onEvent(new UpdateEvent.WorkloadRolledOut(g.workload));
    return result.with(WorkloadStatus.UPDATED);
  }

  private static WorkloadResult failed(WorkloadResult result, String error, ApplyOptions options) {
    options.listener().onEvent(new UpdateEvent.WorkloadFailed(result.workload(), error));
    return result.with(WorkloadStatus.FAILED, error);
  }

  /** Restores a touched workload's previous images (labels included, no annotations). */
  private static WorkloadResult rollBack(
      PlatformCluster cluster,
      RolloutWaiter waiter,
      Group g,
      MetadataKeys keys,
      WorkloadResult result,
      ApplyOptions options) {
    String error;
    try {
      cluster.patch(g.backward(keys));
      waiter.await(g.workload, options.timeout());
      options.listener().onEvent(new UpdateEvent.WorkloadRolledBack(g.workload));
      return result.with(WorkloadStatus.ROLLED_BACK);
    } catch (RuntimeException e) {
      error = "rollback: " + e.getMessage();
    }
    options.listener().onEvent(new UpdateEvent.RollbackFailed(g.workload, error));
    return result.with(
        WorkloadStatus.ROLLBACK_FAILED,
        result.error().isEmpty() ? error : result.error() + "; " + error);
  }

  /**
   * Returns the recovery commands of a plan before anything runs: per Deployment the plan patches,
   * in rollout order, {@code kubectl rollout undo}, then {@code kubectl set image} (or {@code set
   * env}) back to the image each changed component runs now; every argument POSIX-shell quoted. The
   * same commands the result's {@link WorkloadResult#recovery()} carries.
   *
   * @param plan the plan
   * @return the commands by Deployment, in rollout order; empty when the plan patches nothing
   */
  public static Map<Workload, List<String>> recoveryCommands(UpdatePlan plan) {
    Map<Workload, List<String>> out = new LinkedHashMap<>();
    for (Group g : groupByWorkload(plan)) {
      out.put(g.workload, g.recovery());
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  private static List<Group> groupByWorkload(UpdatePlan plan) {
    Map<Workload, Group> groups = new LinkedHashMap<>();
    for (PlanRow row : plan.changed()) {
      Optional<Workload> w = row.workload();
      if (w.isPresent()) {
        groups.computeIfAbsent(w.get(), Group::new).rows.add(row);
      }
    }
    return List.copyOf(groups.values());
  }

  /** The changed rows of one Deployment: one patch forward, one patch back. */
  private static final class Group {
    final Workload workload;
    final List<PlanRow> rows = new ArrayList<>();

    Group(Workload workload) {
      this.workload = workload;
    }

    List<String> components() {
      return rows.stream().map(PlanRow::component).toList();
    }

    DeploymentPatch forward(UpdatePlan plan) {
      MetadataKeys keys = plan.metadata();
      Map<String, String> annotations = new LinkedHashMap<>();
      for (PlanRow r : rows) {
        annotations.put(keys.previousImageAnnotation(r.component()), r.currentImage());
        if (r.built()) {
          annotations.put(keys.versionAnnotation(), plan.targetVersion());
        }
      }
      return new DeploymentPatch(workload, changes(true), labels(keys), annotations);
    }

    DeploymentPatch backward(MetadataKeys keys) {
      return new DeploymentPatch(workload, changes(false), labels(keys), Map.of());
    }

    /** Part-of and component labels, from the first image (non-env-var) component. */
    private Map<String, String> labels(MetadataKeys keys) {
      for (PlanRow r : rows) {
        if (!r.usesEnvVar()) {
          return Map.of(
              MetadataKeys.PART_OF_LABEL, keys.partOf(), keys.componentLabel(), r.component());
        }
      }
      return Map.of();
    }

    private List<ContainerPatch> changes(boolean forward) {
      List<ContainerPatch> out = new ArrayList<>();
      for (PlanRow r : rows) {
        String image = forward ? r.targetImage() : r.currentImage();
        out.add(
            r.usesEnvVar()
                ? new ContainerPatch.SetEnv(r.container(), r.envVar(), image)
                : new ContainerPatch.SetImage(r.container(), image));
      }
      return out;
    }

    List<String> recovery() {
      String ns = workload.namespace();
      String target = "deployment/" + workload.deployment();
      List<String> out = new ArrayList<>();
      out.add(ShellWords.join(List.of("kubectl", "-n", ns, "rollout", "undo", target)));
      for (PlanRow r : rows) {
        out.add(
            r.usesEnvVar()
                ? ShellWords.join(
                    List.of(
                        "kubectl",
                        "-n",
                        ns,
                        "set",
                        "env",
                        target,
                        "-c",
                        r.container(),
                        r.envVar() + "=" + r.currentImage()))
                : ShellWords.join(
                    List.of(
                        "kubectl",
                        "-n",
                        ns,
                        "set",
                        "image",
                        target,
                        r.container() + "=" + r.currentImage())));
      }
      return out;
    }
  }
}
