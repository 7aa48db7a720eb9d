package dev.capstan.update.apply;

import static dev.capstan.update.McpRuntime.OPERATOR;
import static dev.capstan.update.McpRuntime.PLATFORM_API;
import static dev.capstan.update.McpRuntime.REG;
import static dev.capstan.update.McpRuntime.RUNTIME_API;
import static dev.capstan.update.McpRuntime.UI;
import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.common.health.Condition;
import dev.capstan.update.cluster.ContainerPatch;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.CrdDefaults;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.memory.Operation;
import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.plan.UpdateBlockedException;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The update applier, against the example catalog. */
class UpdateApplierTest {

  private final ManualClock clock = ManualClock.create();
  private final List<UpdateEvent> events = new ArrayList<>();
  private final ApplyOptions options =
      ApplyOptions.defaults()
          .withClock(clock)
          .withSleeper(Sleeper.manual(clock))
          .withListener(events::add);

  /** The release that changes operator, gateway-proxy, platform-api, runtime-api and ui. */
  private static PlatformRelease fiveChanges() {
    return release("v0.5.0")
        .tag("analytics-api", "v0.4.0")
        .tag("ingest", "v0.4.0")
        .tag("processor", "v0.4.0")
        .build();
  }

  /** The operator's container: its image and the gateway image in its env, beside OTHER=keep. */
  private static ContainerState operatorManager(String version) {
    return new ContainerState(
        "manager",
        image("operator", version),
        List.of(
            EnvVar.of("MCP_GATEWAY_PROXY_IMAGE", image("gateway-proxy", version)),
            EnvVar.of("OTHER", "keep")));
  }

  @Test
  void patchesOnlyChangedImagesOneWorkloadAtATime() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(DeploymentState.of(OPERATOR, operatorManager("v0.3.9")));
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("ui", image("ui", "v0.3.9"))));
    List<Workload> awaited = new ArrayList<>();
    RolloutWaiter polling =
        RolloutWaiter.polling(cluster, clock, Sleeper.manual(clock), Duration.ofSeconds(2));

    UpdateResult result =
        UpdateApplier.apply(
            cluster,
            plan(cluster, release("v0.4.0").build()),
            options.withWaiter(
                (w, t) -> {
                  awaited.add(w);
                  polling.await(w, t);
                }));

    assertThat(result.failed()).isFalse();
    assertThat(result.workloads())
        .extracting(w -> w.workload().key() + " " + w.components() + " " + w.status().label())
        .containsExactly(
            "mcp-runtime/mcp-runtime-operator-controller-manager [operator, gateway-proxy] updated",
            "mcp-platform/mcp-ui [ui] updated");
    assertThat(awaited).containsExactly(OPERATOR, UI);
    assertThat(cluster.writes())
        .containsExactly(
            "patch deployment mcp-runtime/mcp-runtime-operator-controller-manager",
            "patch deployment mcp-platform/mcp-ui");
    assertThat(cluster.patches().get(0))
        .isEqualTo(
            new DeploymentPatch(
                OPERATOR,
                List.of(
                    new ContainerPatch.SetImage("manager", image("operator", "v0.4.0")),
                    new ContainerPatch.SetEnv(
                        "manager", "MCP_GATEWAY_PROXY_IMAGE", image("gateway-proxy", "v0.4.0"))),
                Map.of(
                    "app.kubernetes.io/part-of", "mcp-runtime",
                    "mcpruntime.org/component", "operator"),
                Map.of(
                    "mcpruntime.org/platform-version", "v0.4.0",
                    "mcpruntime.org/previous-image.operator", image("operator", "v0.3.9"),
                    "mcpruntime.org/previous-image.gateway-proxy",
                        image("gateway-proxy", "v0.3.9"))));

    DeploymentState operator = cluster.deployment(OPERATOR).orElseThrow();
    assertThat(operator.containers()).containsExactly(operatorManager("v0.4.0"));
    assertThat(operator.annotations())
        .containsEntry("mcpruntime.org/platform-version", "v0.4.0")
        .containsEntry("mcpruntime.org/previous-image.operator", image("operator", "v0.3.9"));
    assertThat(operator.labels()).containsEntry("mcpruntime.org/component", "operator");

    UpdatePlan rerun = plan(cluster, release("v0.4.0").build());
    assertThat(rerun.needsApply()).isFalse();
    assertThat(UpdateApplier.apply(cluster, rerun, options).workloads()).isEmpty();
    assertThat(cluster.writes()).hasSize(2);
  }

  @Test
  void partialFailureRollsBackEveryTouchedWorkloadInReverseOrder() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").neverReady(image("runtime-api", "v0.5.0"));

    UpdateResult result = UpdateApplier.apply(cluster, plan(cluster, fiveChanges()), options);

    assertThat(result.failed()).isTrue();
    assertThat(result.workloads())
        .extracting(w -> w.workload().deployment() + " " + w.status().label())
        .containsExactly(
            "mcp-runtime-operator-controller-manager rolled-back",
            "mcp-platform-api rolled-back",
            "mcp-runtime-api rolled-back",
            "mcp-ui not-attempted");
    assertThat(cluster.patches())
        .extracting(p -> p.workload().deployment())
        .containsExactly(
            "mcp-runtime-operator-controller-manager",
            "mcp-platform-api",
            "mcp-runtime-api",
            "mcp-runtime-api",
            "mcp-platform-api",
            "mcp-runtime-operator-controller-manager");
    assertThat(result.workloads().get(2).error())
        .isEqualTo(
            "rollout did not complete within 5m0s: deployment \"mcp-runtime-api\" exceeded its"
                + " progress deadline");
    assertThat(cluster.deployment(OPERATOR).orElseThrow().containers())
        .containsExactly(operatorManager("v0.4.0"));
    assertThat(cluster.deployment(RUNTIME_API).orElseThrow().containers().get(0).image())
        .isEqualTo(image("runtime-api", "v0.4.0"));
    assertThat(cluster.deployment(PLATFORM_API).orElseThrow().containers().get(0).image())
        .isEqualTo(image("platform-api", "v0.4.0"));
    assertThat(cluster.deployment(UI).orElseThrow().containers().get(0).image())
        .isEqualTo(image("ui", "v0.4.0"));
    DeploymentPatch back = cluster.patches().get(5);
    assertThat(back.annotations()).isEmpty();
    assertThat(back.labels()).containsEntry("mcpruntime.org/component", "operator");
    assertThat(events)
        .extracting(UpdateEvent::message)
        .containsExactly(
            "Updating to v0.5.0: 4 workload(s)",
            "Patched mcp-runtime/mcp-runtime-operator-controller-manager (operator, gateway-proxy);"
                + " waiting for rollout",
            "Rolled out mcp-runtime/mcp-runtime-operator-controller-manager",
            "Patched mcp-platform/mcp-platform-api (platform-api); waiting for rollout",
            "Rolled out mcp-platform/mcp-platform-api",
            "Patched mcp-platform/mcp-runtime-api (runtime-api); waiting for rollout",
            "Failed mcp-platform/mcp-runtime-api: rollout did not complete within 5m0s: deployment"
                + " \"mcp-runtime-api\" exceeded its progress deadline",
            "Rolled back mcp-platform/mcp-runtime-api",
            "Rolled back mcp-platform/mcp-platform-api",
            "Rolled back mcp-runtime/mcp-runtime-operator-controller-manager",
            "Update to v0.5.0 rolled back in 0s: 3 rolled-back, 1 not-attempted");
  }

  @Test
  void failureWithoutRollbackKeepsStateAndReportsRecoveryCommands() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").neverReady(image("runtime-api", "v0.5.0"));

    UpdateResult result =
        UpdateApplier.apply(
            cluster, plan(cluster, fiveChanges()), options.withRollbackOnFailure(false));

    assertThat(result.workloads())
        .extracting(w -> w.status().label())
        .containsExactly("updated", "updated", "failed", "not-attempted");
    assertThat(cluster.patches()).hasSize(3);
    assertThat(cluster.deployment(RUNTIME_API).orElseThrow().containers().get(0).image())
        .isEqualTo(image("runtime-api", "v0.5.0"));
    assertThat(result.workloads().get(0).recovery())
        .containsExactly(
            "kubectl -n mcp-runtime rollout undo deployment/mcp-runtime-operator-controller-manager",
            "kubectl -n mcp-runtime set image deployment/mcp-runtime-operator-controller-manager"
                + " manager="
                + REG
                + "/mcp-runtime-operator:v0.4.0",
            "kubectl -n mcp-runtime set env deployment/mcp-runtime-operator-controller-manager -c"
                + " manager MCP_GATEWAY_PROXY_IMAGE="
                + REG
                + "/mcp-gateway:v0.4.0");
    assertThat(result.workloads().get(2).recovery())
        .containsExactly(
            "kubectl -n mcp-platform rollout undo deployment/mcp-runtime-api",
            "kubectl -n mcp-platform set image deployment/mcp-runtime-api runtime-api="
                + REG
                + "/mcp-runtime-api:v0.4.0");
  }

  @Test
  void workloadAlreadyOnTargetIsSkippedWithoutPatch() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    UpdatePlan plan = plan(cluster, release("v0.4.0").tag("ui", "v0.5.0").build());
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("ui", image("ui", "v0.5.0"))));

    UpdateResult result = UpdateApplier.apply(cluster, plan, options);

    assertThat(result.workloads()).extracting(w -> w.status().label()).containsExactly("skipped");
    assertThat(cluster.patches()).isEmpty();
    assertThat(events)
        .extracting(UpdateEvent::message)
        .containsExactly(
            "Updating to v0.4.0: 1 workload(s)",
            "Skipping mcp-platform/mcp-ui (already on target images)",
            "Update to v0.4.0 completed in 0s: 1 skipped");
  }

  @Test
  void patchAndGetFailuresStopTheUpdate() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.faults().failNext(Operation.PATCH, PLATFORM_API.key(), "conflict");

    UpdateResult result = UpdateApplier.apply(cluster, plan(cluster, fiveChanges()), options);

    assertThat(result.workloads())
        .extracting(w -> w.status().label() + " " + w.error())
        .containsExactly(
            "rolled-back ",
            "rolled-back patch: patch mcp-platform/mcp-platform-api: conflict",
            "not-attempted ",
            "not-attempted ");
    assertThat(cluster.patches())
        .extracting(p -> p.workload().deployment())
        .containsExactly(
            "mcp-runtime-operator-controller-manager",
            "mcp-platform-api",
            "mcp-runtime-operator-controller-manager");

    InMemoryPlatformCluster getFails = cluster("v0.4.0");
    getFails.faults().failNext(Operation.GET_DEPLOYMENT, OPERATOR.key(), "forbidden");
    UpdateResult first = UpdateApplier.apply(getFails, plan(getFails, fiveChanges()), options);
    assertThat(first.workloads().get(0).status()).isEqualTo(WorkloadStatus.FAILED);
    assertThat(first.workloads().get(0).error())
        .isEqualTo(
            "get: get_deployment mcp-runtime/mcp-runtime-operator-controller-manager: forbidden");
    assertThat(getFails.patches()).isEmpty();
  }

  @Test
  void failedRollbackIsReportedAndTheRestStillRollBack() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").neverReady(image("runtime-api", "v0.5.0"));
    cluster.faults().failNth(Operation.PATCH, PLATFORM_API.key(), 2, "admission webhook down");

    UpdateResult result = UpdateApplier.apply(cluster, plan(cluster, fiveChanges()), options);

    assertThat(result.workloads())
        .extracting(w -> w.status().label())
        .containsExactly("rolled-back", "rollback-failed", "rolled-back", "not-attempted");
    assertThat(result.workloads().get(1).error())
        .isEqualTo("rollback: patch mcp-platform/mcp-platform-api: admission webhook down");
    assertThat(cluster.patches())
        .extracting(p -> p.workload().deployment())
        .containsExactly(
            "mcp-runtime-operator-controller-manager",
            "mcp-platform-api",
            "mcp-runtime-api",
            "mcp-runtime-api",
            "mcp-runtime-operator-controller-manager");
  }

  @Test
  void crdsAreAppliedFirstAndNeverRolledBack() {
    PlatformRelease release =
        release("v0.5.0")
            .tag("analytics-api", "v0.4.0")
            .tag("ingest", "v0.4.0")
            .tag("processor", "v0.4.0")
            .crds(crd("mcpservers", "MCPServer", "v1alpha2"))
            .build();
    InMemoryPlatformCluster cluster = cluster("v0.4.0").neverReady(image("ui", "v0.5.0"));
    cluster.putCrd("mcpservers.mcpruntime.org", Map.of("group", "mcpruntime.org"));

    UpdateResult result = UpdateApplier.apply(cluster, plan(cluster, release), options);

    assertThat(result.crds())
        .containsExactly(CrdResult.of("mcpservers.mcpruntime.org", "configured"));
    assertThat(cluster.writes().get(0)).isEqualTo("apply crd mcpservers.mcpruntime.org");
    assertThat(cluster.writes()).filteredOn(w -> w.startsWith("apply crd")).hasSize(1);
    assertThat(result.workloads()).extracting(w -> w.status().label()).containsOnly("rolled-back");
    assertThat(cluster.crd("mcpservers.mcpruntime.org").orElseThrow().spec())
        .isEqualTo(CrdDefaults.apply(release.crdBundle().crds().get(0).spec()))
        .containsEntry("conversion", Map.of("strategy", "None"));
  }

  @Test
  void crdApplyFailureStopsBeforeAnyImageIsPatched() {
    String bundle =
        crd("mcpservers", "MCPServer", "v1alpha1") + "---\n" + crd("grants", "Grant", "v1alpha1");
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.faults().failNext(Operation.APPLY_CRD, "grants.mcpruntime.org", "quota exceeded");

    UpdateResult result =
        UpdateApplier.apply(
            cluster, plan(cluster, release("v0.5.0").crds(bundle).build()), options);

    assertThat(result.failed()).isTrue();
    assertThat(result.crds())
        .containsExactly(
            CrdResult.of("mcpservers.mcpruntime.org", "created"),
            CrdResult.failed(
                "grants.mcpruntime.org", "", "apply_crd grants.mcpruntime.org: quota exceeded"));
    assertThat(result.workloads())
        .extracting(w -> w.status().label())
        .containsOnly("not-attempted")
        .hasSize(7);
    assertThat(cluster.patches()).isEmpty();
    assertThat(cluster.writes()).containsExactly("apply crd mcpservers.mcpruntime.org");
  }

  @Test
  void crdWaitKeepsPollingWhileNotEstablishedAndFailsOnRejectedNames() {
    PlatformRelease release = release("v0.4.0").crds(crd("mcpservers", "MCPServer", "v1")).build();
    String name = "mcpservers.mcpruntime.org";
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.crdConditionsOnApply(
        name,
        Condition.isFalse("Established", "Installing", ""),
        Condition.isTrue("NamesAccepted"));
    clock.onSleep(() -> cluster.putCrd(name, release.crdBundle().crds().get(0).spec()));

    UpdateResult established = UpdateApplier.apply(cluster, plan(cluster, release), options);

    assertThat(established.failed()).isFalse();
    assertThat(established.crds()).containsExactly(CrdResult.of(name, "created"));
    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(2));

    InMemoryPlatformCluster rejected = cluster("v0.4.0");
    rejected.crdConditionsOnApply(
        name,
        Condition.isTrue("Established"),
        Condition.isFalse("NamesAccepted", "MultipleNamesNotAllowed", "plural conflicts"));
    UpdateResult result = UpdateApplier.apply(rejected, plan(rejected, release), options);
    assertThat(result.crds())
        .containsExactly(
            CrdResult.failed(
                name, "created", "NamesAccepted=False: MultipleNamesNotAllowed: plural conflicts"));
  }

  @Test
  void crdWaitTimesOutAfterAtLeastTwoMinutes() {
    PlatformRelease release = release("v0.4.0").crds(crd("mcpservers", "MCPServer", "v1")).build();
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.crdConditionsOnApply(
        "mcpservers.mcpruntime.org", Condition.isFalse("Established", "Installing", ""));

    UpdateResult result =
        UpdateApplier.apply(
            cluster, plan(cluster, release), options.withTimeout(Duration.ofSeconds(30)));

    assertThat(result.crds().get(0).error())
        .isEqualTo("timed out after 2m0s waiting for Established and NamesAccepted");
    assertThat(clock.sleeps()).hasSize(60);
  }

  @Test
  void blockedPlansAreRefusedBeforeAnyWrite() {
    InMemoryPlatformCluster cluster = cluster("v0.6.0");
    UpdatePlan blocked = plan(cluster, release("v0.5.0").build());

    assertThatThrownBy(() -> UpdateApplier.apply(cluster, blocked, options))
        .isInstanceOf(UpdateBlockedException.class)
        .hasMessageStartingWith("update blocked for operator, gateway-proxy, platform-api");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void stampInstalledVersionWritesMetadataOnly() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("ui", REG + "/mcp-ui:latest")));
    DeploymentState before = cluster.deployment(UI).orElseThrow();

    List<Workload> stamped =
        UpdateApplier.stampInstalledVersion(
            cluster, dev.capstan.update.McpRuntime.catalog(), "v0.4.0");

    assertThat(stamped)
        .extracting(Workload::deployment)
        .containsExactly(
            "mcp-runtime-operator-controller-manager",
            "mcp-platform-api",
            "mcp-runtime-api",
            "mcp-analytics-api",
            "mcp-ingest",
            "mcp-processor",
            "mcp-ui");
    DeploymentState after = cluster.deployment(UI).orElseThrow();
    assertThat(after.containers()).isEqualTo(before.containers());
    assertThat(after.labels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("app.kubernetes.io/part-of", "mcp-runtime", "mcpruntime.org/component", "ui"));
    assertThat(after.annotations())
        .containsExactlyEntriesOf(Map.of("mcpruntime.org/platform-version", "v0.4.0"));
    assertThat(cluster.patches()).allSatisfy(p -> assertThat(p.containers()).isEmpty());
    assertThat(
            dev.capstan.update.McpRuntime.plan(cluster, release("v0.4.0").build()).rows().stream()
                .filter(r -> r.component().equals("ui"))
                .findFirst()
                .orElseThrow()
                .currentVersion())
        .isEqualTo("v0.4.0");
  }
}
