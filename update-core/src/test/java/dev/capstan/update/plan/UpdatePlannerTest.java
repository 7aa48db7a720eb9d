package dev.capstan.update.plan;

import static dev.capstan.update.McpRuntime.CERT_MANAGER;
import static dev.capstan.update.McpRuntime.D1;
import static dev.capstan.update.McpRuntime.D2;
import static dev.capstan.update.McpRuntime.REG;
import static dev.capstan.update.McpRuntime.UI;
import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static dev.capstan.update.McpRuntime.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.McpRuntime;
import dev.capstan.update.NotInstalledException;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.PodState;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.result.UpdateResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The update planner, against the example catalog. */
class UpdatePlannerTest {

  private static final String CM_OPT_IN = "opt-in group cert-manager";
  private static final String MATCHES = "image matches release";

  @Test
  void upToDatePlatformIsANoop() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");

    UpdatePlan plan = plan(cluster, release("v0.4.0").build());

    assertThat(rows(plan))
        .containsExactly(
            "cert-manager-controller skip " + CM_OPT_IN,
            "cert-manager-webhook skip " + CM_OPT_IN,
            "cert-manager-cainjector skip " + CM_OPT_IN,
            "operator unchanged " + MATCHES,
            "gateway-proxy unchanged " + MATCHES,
            "platform-api unchanged " + MATCHES,
            "runtime-api unchanged " + MATCHES,
            "analytics-api unchanged " + MATCHES,
            "ingest unchanged " + MATCHES,
            "processor unchanged " + MATCHES,
            "ui unchanged " + MATCHES,
            "doctor-smoke skip on-demand image; no workload to update",
            "mcp-auth skip opt-in group auth");
    assertThat(plan.installedVersion()).isEqualTo("v0.4.0");
    assertThat(plan.targetVersion()).isEqualTo("v0.4.0");
    assertThat(plan.needsApply()).isFalse();
    assertThat(plan.warnings()).isEmpty();
    assertThat(plan.preserved())
        .hasSize(7)
        .contains("Secrets (credentials, registry pull secrets, TLS material)");

    UpdateResult result = UpdateApplier.apply(cluster, plan, ApplyOptions.defaults());
    assertThat(result.workloads()).isEmpty();
    assertThat(result.failed()).isFalse();
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void detectsTagChangeAndResolvesRelativeRepositoryAgainstRunningRegistry() {
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.5.0").build());

    PlanRow ui = row(plan, "ui");
    assertThat(ui.action()).isEqualTo(PlanAction.UPDATE);
    assertThat(ui.reason()).isEqualTo(RowReason.NONE);
    assertThat(ui.currentImage()).isEqualTo(REG + "/mcp-ui:v0.4.0");
    assertThat(ui.targetImage()).isEqualTo(REG + "/mcp-ui:v0.5.0");
    assertThat(ui.currentVersion()).isEqualTo("v0.4.0");
    assertThat(ui.targetVersion()).isEqualTo("v0.5.0");
    assertThat(ui.namespace() + "/" + ui.deployment()).isEqualTo("mcp-platform/mcp-ui");

    PlanRow gateway = row(plan, "gateway-proxy");
    assertThat(gateway.action()).isEqualTo(PlanAction.UPDATE);
    assertThat(gateway.container()).isEqualTo("manager");
    assertThat(gateway.envVar()).isEqualTo("MCP_GATEWAY_PROXY_IMAGE");
    assertThat(gateway.currentImage()).isEqualTo(REG + "/mcp-gateway:v0.4.0");
    assertThat(gateway.targetImage()).isEqualTo(REG + "/mcp-gateway:v0.5.0");
    assertThat(plan.warnings())
        .extracting(PlanWarning::text)
        .containsExactly(
            "gateway-proxy: operator re-renders MCPServer gateway sidecars; tenant MCP server pods"
                + " will restart");
    assertThat(plan.changed())
        .extracting(PlanRow::component)
        .containsExactly(
            "operator",
            "gateway-proxy",
            "platform-api",
            "runtime-api",
            "analytics-api",
            "ingest",
            "processor",
            "ui");
  }

  @Test
  void targetRegistryPrecedenceIsManifestRegistryThenRunningRegistry() {
    PlatformRelease withRegistry = release("v0.5.0").registry("ghcr.io:443").build();
    assertThat(row(plan(cluster("v0.4.0"), withRegistry), "ui").targetImage())
        .isEqualTo("ghcr.io:443/mcp-ui:v0.5.0");

    PlatformRelease absolute =
        new PlatformRelease(
            withRegistry.apiVersion(),
            withRegistry.kind(),
            "v0.5.0",
            "ghcr.io:443",
            false,
            "",
            List.of(
                dev.capstan.update.manifest.ManifestComponent.of(
                    "ui", "docker.io/mcp/mcp-ui", "v0.5.0")));
    assertThat(row(plan(cluster("v0.4.0"), absolute), "ui").targetImage())
        .isEqualTo("docker.io/mcp/mcp-ui:v0.5.0");
  }

  @Test
  void runningDigestEqualToTargetPinsTheSpecAndChangesOnlyThatRow() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").publishImage(image("ui", "v0.4.0"), D1);

    UpdatePlan plan = plan(cluster, release("v0.4.0").digest("ui", D1).build());

    PlanRow ui = row(plan, "ui");
    assertThat(ui.action()).isEqualTo(PlanAction.UPDATE);
    assertThat(ui.currentDigest()).isEqualTo(D1);
    assertThat(ui.targetImage()).isEqualTo(REG + "/mcp-ui:v0.4.0@" + D1);
    assertThat(ui.notes())
        .containsExactly("running digest already matches; pinning spec to digest");
    assertThat(plan.changed()).extracting(PlanRow::component).containsExactly("ui");
  }

  @Test
  void differentRunningDigestIsAnUpdateWithoutNote() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").publishImage(image("ui", "v0.4.0"), D2);

    PlanRow ui = row(plan(cluster, release("v0.4.0").digest("ui", D1).build()), "ui");

    assertThat(ui.action()).isEqualTo(PlanAction.UPDATE);
    assertThat(ui.currentDigest()).isEqualTo(D2);
    assertThat(ui.targetImage()).isEqualTo(REG + "/mcp-ui:v0.4.0@" + D1);
    assertThat(ui.notes()).isEmpty();
  }

  @Test
  void specAlreadyPinnedToTheTargetDigestIsUnchanged() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(
        DeploymentState.of(UI, ContainerState.of("ui", image("ui", "v0.4.0") + "@" + D1)));

    PlanRow ui = row(plan(cluster, release("v0.4.0").digest("ui", D1).build()), "ui");

    assertThat(ui.action()).isEqualTo(PlanAction.UNCHANGED);
    assertThat(ui.reason()).isEqualTo(RowReason.of(RowReason.Code.IMAGE_MATCHES));
    assertThat(ui.currentDigest()).isEqualTo(D1);
  }

  @Test
  void pinnedSpecWithTagOnlyManifestIsUnchangedAndKeepsTheDigest() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    String pinned = image("ui", "v0.4.0") + "@" + D1;
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("ui", pinned)));

    PlanRow ui = row(plan(cluster, release("v0.4.0").build()), "ui");

    assertThat(ui.action()).isEqualTo(PlanAction.UNCHANGED);
    assertThat(ui.targetImage()).isEqualTo(pinned);
  }

  @Test
  void runningDigestIsEmptyWhenReadyPodsDisagree() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(
        DeploymentState.of(UI, ContainerState.of("ui", image("ui", "v0.4.0"))), 0);
    cluster.putPod(pod("a", "docker-pullable://" + REG + "/mcp-ui@" + D1, true));
    cluster.putPod(pod("b", "docker-pullable://" + REG + "/mcp-ui@" + D2, true));
    cluster.putPod(pod("c", "docker-pullable://" + REG + "/mcp-ui@" + D2, false));
    assertThat(row(plan(cluster, release("v0.4.0").digest("ui", D1).build()), "ui").currentDigest())
        .isEmpty();

    InMemoryPlatformCluster agreeing = cluster("v0.4.0");
    agreeing.putDeployment(
        DeploymentState.of(UI, ContainerState.of("ui", image("ui", "v0.4.0"))), 0);
    agreeing.putPod(pod("a", "docker-pullable://" + REG + "/mcp-ui@" + D1, true));
    agreeing.putPod(pod("c", "docker-pullable://" + REG + "/mcp-ui@" + D2, false));
    PlanRow ui = row(plan(agreeing, release("v0.4.0").digest("ui", D1).build()), "ui");
    assertThat(ui.currentDigest()).isEqualTo(D1);
    assertThat(ui.notes())
        .containsExactly("running digest already matches; pinning spec to digest");
  }

  @Test
  void onlyChangesTheNamedComponentsAndTrimsTheirNames() {
    UpdatePlan plan =
        plan(
            cluster("v0.4.0"),
            release("v0.5.0").build(),
            new Selection(List.of(" ui ", ""), Set.of(), false));

    assertThat(plan.changed()).extracting(PlanRow::component).containsExactly("ui");
    assertThat(row(plan, "operator").reason()).isEqualTo(RowReason.of(RowReason.Code.NOT_SELECTED));
    assertThat(row(plan, "cert-manager-controller").reason())
        .isEqualTo(RowReason.of(RowReason.Code.NOT_SELECTED));
    assertThat(
            row(plan(cluster("v0.4.0"), release("v0.5.0").build()), "cert-manager-controller")
                .reason())
        .isEqualTo(RowReason.of(RowReason.Code.OPT_IN, "cert-manager"));
  }

  @Test
  void includedGroupsUpdateOptInComponentsWithinTheirPolicy() {
    PlatformRelease release =
        release("v0.5.0")
            .tag("cert-manager-controller", "v1.14.5")
            .without("cert-manager-webhook")
            .build();

    UpdatePlan plan =
        plan(
            cluster("v0.4.0"),
            release,
            Selection.defaults().withIncludeGroups("cert-manager", "auth"));

    assertThat(rows(plan).subList(0, 3))
        .containsExactly(
            "cert-manager-controller update",
            "cert-manager-webhook skip not in release manifest",
            "cert-manager-cainjector unchanged " + MATCHES);
    assertThat(row(plan, "mcp-auth").action()).isEqualTo(PlanAction.UPDATE);
    assertThat(row(plan, "mcp-auth").targetImage()).isEqualTo(REG + "/mcp-auth-server:v0.5.0");
  }

  @Test
  void certManagerMinorBumpIsBlockedBySameMinorPolicy() {
    PlatformRelease release = release("v0.5.0").tag("cert-manager-controller", "v1.15.0").build();

    UpdatePlan plan =
        plan(cluster("v0.4.0"), release, Selection.defaults().withIncludeGroups("cert-manager"));

    PlanRow controller = row(plan, "cert-manager-controller");
    assertThat(controller.action()).isEqualTo(PlanAction.BLOCKED);
    assertThat(controller.reason().text())
        .isEqualTo(
            "cert-manager-controller v1.14.4 -> v1.15.0 is not a patch update; update does not"
                + " upgrade cert-manager CRDs, follow https://cert-manager.io/docs/installation/upgrade/");
    assertThat(plan.blocked())
        .extracting(PlanRow::component)
        .containsExactly("cert-manager-controller");
  }

  @Test
  void unknownOnlyNamesAndGroupsAreRejected() {
    assertThatThrownBy(
            () ->
                plan(
                    cluster("v0.4.0"),
                    release("v0.5.0").build(),
                    Selection.defaults().withOnly("traefik")))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessage(
            "invalid update options: Selection.only has unknown component(s) traefik; known"
                + " components:"
                + " cert-manager-controller, cert-manager-webhook, cert-manager-cainjector, operator,"
                + " gateway-proxy, platform-api, runtime-api, analytics-api, ingest, processor, ui,"
                + " doctor-smoke, mcp-auth");
    assertThatThrownBy(
            () ->
                plan(
                    cluster("v0.4.0"),
                    release("v0.5.0").build(),
                    Selection.defaults().withIncludeGroups("traefik")))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessage(
            "invalid update options: Selection.includeGroups has unknown group(s) traefik; known"
                + " groups: auth, cert-manager");
  }

  @Test
  void emptyClusterIsNotAnInstall() {
    assertThatThrownBy(() -> plan(InMemoryPlatformCluster.create(), release("v0.5.0").build()))
        .isInstanceOf(NotInstalledException.class)
        .hasMessage(
            "deployment mcp-runtime/mcp-runtime-operator-controller-manager not found: the cluster"
                + " does not look like an install of MCP Runtime (run `mcp-runtime setup` first, or"
                + " check --context)");
  }

  @Test
  void missingWorkloadsAreSkippedAsNotInstalled() {
    InMemoryPlatformCluster operatorOnly = InMemoryPlatformCluster.create();
    operatorOnly.putDeployment(cluster("v0.4.0").deployment(McpRuntime.OPERATOR).orElseThrow());

    UpdatePlan plan = plan(operatorOnly, release("v0.5.0").build());

    assertThat(row(plan, "ui").reason().text()).isEqualTo("not installed");
    assertThat(row(plan, "ui").action()).isEqualTo(PlanAction.SKIP);
    assertThat(plan.changed())
        .extracting(PlanRow::component)
        .containsExactly("operator", "gateway-proxy");
  }

  @Test
  void missingContainerAndUnsetEnvVarAndUnparseableImageAreSkippedWithReasons() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("web", image("ui", "v0.4.0"))));
    cluster.putDeployment(
        DeploymentState.of(
            McpRuntime.OPERATOR, ContainerState.of("manager", image("operator", "v0.4.0"))));
    cluster.putDeployment(
        DeploymentState.of(
            McpRuntime.PLATFORM_API, ContainerState.of("platform-api", "Bad Image")));

    UpdatePlan plan = plan(cluster, release("v0.5.0").build());

    assertThat(row(plan, "ui").reason())
        .isEqualTo(RowReason.of(RowReason.Code.CONTAINER_NOT_FOUND, "ui"));
    assertThat(row(plan, "gateway-proxy").reason().text())
        .isEqualTo("MCP_GATEWAY_PROXY_IMAGE not set on mcp-runtime-operator-controller-manager");
    assertThat(row(plan, "platform-api").reason().text())
        .startsWith("cannot parse current image: invalid image reference 'Bad Image'");
  }

  @Test
  void downgradeIsBlockedUnlessAllowed() {
    UpdatePlan blocked = plan(cluster("v0.6.0"), release("v0.5.0").build());

    assertThat(row(blocked, "ui").action()).isEqualTo(PlanAction.BLOCKED);
    assertThat(row(blocked, "ui").reason())
        .isEqualTo(RowReason.of(RowReason.Code.DOWNGRADE, "v0.6.0", "v0.5.0"));
    assertThat(blocked.blocked()).hasSize(8);

    UpdatePlan allowed =
        plan(
            cluster("v0.6.0"),
            release("v0.5.0").build(),
            Selection.defaults().withAllowDowngrade(true));
    assertThat(allowed.blocked()).isEmpty();
    assertThat(row(allowed, "ui").action()).isEqualTo(PlanAction.UPDATE);
  }

  @Test
  void latestInstallUpdatesWithANoteInsteadOfADowngradeCheck() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("ui", REG + "/mcp-ui:latest")));

    PlanRow ui = row(plan(cluster, release("v0.5.0").build()), "ui");

    assertThat(ui.action()).isEqualTo(PlanAction.UPDATE);
    assertThat(ui.currentVersion()).isEqualTo("latest");
    assertThat(ui.notes())
        .containsExactly("version \"latest\" or \"v0.5.0\" is not semver; downgrade check skipped");
  }

  @Test
  void platformVersionAnnotationStandsInForALatestTag() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(
        DeploymentState.of(UI, ContainerState.of("ui", REG + "/mcp-ui:latest"))
            .withAnnotation("mcpruntime.org/platform-version", "v0.6.0"));

    PlanRow ui = row(plan(cluster, release("v0.5.0").build()), "ui");

    assertThat(ui.action()).isEqualTo(PlanAction.BLOCKED);
    assertThat(ui.currentVersion()).isEqualTo("v0.6.0");
    assertThat(ui.reason()).isEqualTo(RowReason.of(RowReason.Code.DOWNGRADE, "v0.6.0", "v0.5.0"));
  }

  @Test
  void commitTaggedImageUsesTheReleaseVersion() {
    String tag = "v0.6.3-g" + "a".repeat(40);
    PlanRow ui = row(plan(cluster("v0.6.3"), release("v0.6.3").tag("ui", tag).build()), "ui");

    assertThat(ui.action()).isEqualTo(PlanAction.UPDATE);
    assertThat(ui.currentVersion()).isEqualTo("v0.6.3");
    assertThat(ui.targetVersion()).isEqualTo("v0.6.3");
    assertThat(ui.targetImage()).isEqualTo(REG + "/mcp-ui:" + tag);

    PlanRow newer = row(plan(cluster("v0.6.4"), release("v0.6.3").tag("ui", tag).build()), "ui");
    assertThat(newer.action()).isEqualTo(PlanAction.BLOCKED);
    assertThat(newer.reason().text()).isEqualTo("downgrade v0.6.4 -> v0.6.3");
  }

  @Test
  void installedVersionIsMixedWhenBuiltComponentsDisagree() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putDeployment(DeploymentState.of(UI, ContainerState.of("ui", image("ui", "v0.10.0"))));
    cluster.putDeployment(
        DeploymentState.of(
            McpRuntime.RUNTIME_API,
            ContainerState.of("runtime-api", image("runtime-api", "v0.9.1"))));

    UpdatePlan plan = plan(cluster, release("v0.10.0").build());

    assertThat(plan.installedVersion()).isEqualTo("mixed (v0.4.0, v0.9.1, v0.10.0)");
  }

  @Test
  void embeddedCrdsMakeThePlanApplyEvenWhenImagesMatch() {
    PlatformRelease release =
        release("v0.4.0").crds(crd("mcpservers", "MCPServer", "v1alpha1")).build();

    UpdatePlan plan = plan(cluster("v0.4.0"), release);

    assertThat(plan.changed()).isEmpty();
    assertThat(plan.applyCrds()).isTrue();
    assertThat(plan.needsApply()).isTrue();
    assertThat(plan.crdNames()).containsExactly("mcpservers.mcpruntime.org");
    assertThat(plan.crdPreview())
        .containsExactly(CrdResult.of("mcpservers.mcpruntime.org", "create"));
    assertThat(plan.warnings())
        .extracting(PlanWarning::text)
        .containsExactly(
            "release v0.4.0 applies CustomResourceDefinitions before image rollouts:"
                + " mcpservers.mcpruntime.org");
  }

  @Test
  void crdPreviewComparesSpecsWithTheLiveCrds() {
    String bundle =
        crd("mcpservers", "MCPServer", "v1alpha1") + "---\n" + crd("grants", "Grant", "v1alpha2");
    PlatformRelease release = release("v0.4.0").crds(bundle).build();
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putCrd("mcpservers.mcpruntime.org", release.crdBundle().crds().get(0).spec());
    cluster.putCrd("grants.mcpruntime.org", Map.of("group", "mcpruntime.org"));

    UpdatePlan plan = plan(cluster, release);

    assertThat(plan.crdPreview())
        .containsExactly(
            CrdResult.of("mcpservers.mcpruntime.org", "skipped"),
            CrdResult.of("grants.mcpruntime.org", "update"));
    assertThat(plan.crdNames()).containsExactly("grants.mcpruntime.org");

    InMemoryPlatformCluster current = cluster("v0.4.0");
    for (var doc : release.crdBundle().crds()) {
      current.putCrd(doc.name(), doc.spec());
    }
    UpdatePlan nothing = plan(current, release);
    assertThat(nothing.applyCrds()).isFalse();
    assertThat(nothing.needsApply()).isFalse();
    assertThat(nothing.warnings())
        .extracting(PlanWarning::text)
        .containsExactly("CustomResourceDefinitions already match the release; CRD apply skipped");
  }

  @Test
  void onlySkipsCrdsWithAWarning() {
    PlatformRelease release =
        release("v0.5.0").crds(crd("mcpservers", "MCPServer", "v1alpha1")).build();

    UpdatePlan plan = plan(cluster("v0.4.0"), release, Selection.defaults().withOnly("ui"));

    assertThat(plan.applyCrds()).isFalse();
    assertThat(plan.crdPreview()).isEmpty();
    assertThat(plan.warnings())
        .containsExactly(PlanWarning.of(PlanWarning.Code.CRDS_SKIPPED_BY_ONLY, "v0.5.0"));
  }

  @Test
  void crdChangeWithoutBundleIsRefused() {
    PlatformRelease base = release("v0.5.0").build();
    PlatformRelease noBundle =
        new PlatformRelease(
            base.apiVersion(), base.kind(), "v0.5.0", "", true, "", base.components());

    assertThatThrownBy(() -> plan(cluster("v0.4.0"), noBundle))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            "invalid release manifest for version v0.5.0: crdChange is set but the release has no"
                + " embedded crds; attach the release's CRD bundle (PlatformRelease.withCrds)");
  }

  @Test
  void planningIsDeterministic() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").publishImage(image("ui", "v0.4.0"), D1);
    PlatformRelease release = release("v0.5.0").digest("platform-api", D2).build();

    UpdatePlan first = plan(cluster, release);
    UpdatePlan second = plan(cluster, release);

    assertThat(second).isEqualTo(first);
  }

  @Test
  void certManagerStaysAtItsOwnVersionInInstalledVersion() {
    UpdatePlan plan =
        plan(
            cluster("v0.4.0"),
            release("v0.4.0").build(),
            Selection.defaults().withIncludeGroups("cert-manager"));

    assertThat(row(plan, "cert-manager-controller").currentVersion()).isEqualTo(CERT_MANAGER);
    assertThat(plan.installedVersion()).isEqualTo("v0.4.0");
  }

  private static PodState pod(String name, String imageId, boolean ready) {
    return new PodState(
        "mcp-platform",
        "mcp-ui-" + name,
        Map.of("app", "mcp-ui"),
        List.of(new ContainerStatus("ui", ready, imageId)));
  }

  private static PlanRow row(UpdatePlan plan, String component) {
    return plan.rows().stream()
        .filter(r -> r.component().equals(component))
        .findFirst()
        .orElseThrow();
  }
}
