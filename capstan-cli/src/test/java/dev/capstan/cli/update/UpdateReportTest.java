package dev.capstan.cli.update;

import static dev.capstan.update.McpRuntime.D1;
import static dev.capstan.update.McpRuntime.D2;
import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.manifest.CrdBundle;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.ImageBuildAction;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.result.UpdateResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** The text and JSON layouts, compared with golden files under {@code report/}. */
class UpdateReportTest {
  private final ManualClock clock = ManualClock.create();

  /** A plan and result that exercise every section: CRDs, notes, builds, warnings, rollback. */
  private record Scenario(UpdatePlan plan, UpdateResult result) {}

  private Scenario scenario() {
    InMemoryPlatformCluster cluster =
        cluster("v0.4.0")
            .neverReady(image("runtime-api", "v0.5.0"))
            .publishImage(image("ingest", "v0.4.0"), D1);
    UpdatePlan plan =
        plan(
                cluster,
                release("v0.5.0")
                    .tag("analytics-api", "v0.4.0")
                    .tag("ingest", "v0.4.0")
                    .digest("ingest", D1)
                    .tag("processor", "v0.4.0")
                    .tag("cert-manager-controller", "v1.14.5")
                    .crds(crd("mcpservers", "MCPServer", "v1alpha2"))
                    .build(),
                Selection.defaults().withIncludeGroups("cert-manager"))
            .withCluster(new ClusterInfo("kind-dev", "https://127.0.0.1:6443", "4f1c2d"))
            .withManifestSource("release/platform-manifest.yaml")
            .withImageBuilds(
                List.of(
                    ImageBuildAction.build(
                        "operator",
                        image("operator", "v0.5.0"),
                        "target tag missing from registry"),
                    ImageBuildAction.reuse(
                        "ui", image("ui", "v0.5.0"), "target tag already in registry")));
    UpdateResult result =
        UpdateApplier.apply(
            cluster,
            plan,
            ApplyOptions.defaults().withClock(clock).withSleeper(Sleeper.manual(clock)));
    return new Scenario(plan, result);
  }

  @Test
  void planAndResultText() {
    Scenario s = scenario();

    assertThat(UpdateReport.text(s.plan(), s.result())).isEqualTo(golden("rollback.txt"));
  }

  @Test
  void jsonReport() {
    Scenario s = scenario();

    assertThat(UpdateReport.json(false, s.plan(), s.result())).isEqualTo(golden("rollback.json"));
  }

  @Test
  void jsonUsesTheSeedFieldNamesAndLeavesOutEmptyOptionalFields() throws IOException {
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.4.0").build());

    JsonNode json = new ObjectMapper().readTree(UpdateReport.json(true, plan, null));

    assertThat(json.fieldNames()).toIterable().containsExactly("dryRun", "plan");
    assertThat(json.get("dryRun").asBoolean()).isTrue();
    assertThat(json.get("plan").fieldNames())
        .toIterable()
        .containsExactly(
            "cluster",
            "manifestSource",
            "targetVersion",
            "installedVersion",
            "components",
            "preservedResources");
    assertThat(json.get("plan").get("cluster").fieldNames())
        .toIterable()
        .containsExactly("context", "server", "clusterID");
    assertThat(json.get("plan").get("components").get(0).fieldNames())
        .toIterable()
        .containsExactly("component", "namespace", "deployment", "container", "action", "reason");
  }

  @Test
  void aDryRunShowsTheRecoveryCommandsOfThePlanBeforeAnythingRuns() throws IOException {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    UpdatePlan plan = plan(cluster, release("v0.4.0").tag("ui", "v0.4.1").build());

    assertThat(UpdateReport.recoveryText(plan))
        .isEqualTo(
            "\nRecovery commands, should this update need undoing by hand:\n"
                + "  # mcp-platform/mcp-ui\n"
                + "  kubectl -n mcp-platform rollout undo deployment/mcp-ui\n"
                + "  kubectl -n mcp-platform set image deployment/mcp-ui ui="
                + image("ui", "v0.4.0")
                + "\n");
    JsonNode recovery =
        new ObjectMapper()
            .readTree(UpdateReport.json(true, plan, null))
            .get("plan")
            .get("recovery");
    assertThat(recovery).hasSize(1);
    assertThat(recovery.get(0).get("namespace").asText()).isEqualTo("mcp-platform");
    assertThat(recovery.get(0).get("deployment").asText()).isEqualTo("mcp-ui");
    assertThat(recovery.get(0).get("commands"))
        .extracting(JsonNode::asText)
        .containsExactly(
            "kubectl -n mcp-platform rollout undo deployment/mcp-ui",
            "kubectl -n mcp-platform set image deployment/mcp-ui ui=" + image("ui", "v0.4.0"));
    assertThat(
            new ObjectMapper()
                .readTree(UpdateReport.json(false, plan, null))
                .get("plan")
                .has("recovery"))
        .isFalse();
    assertThat(UpdateReport.recoveryText(plan(cluster, release("v0.4.0").build()))).isEmpty();
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void upToDateResultHasNoRecoverySection() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    UpdatePlan plan = plan(cluster, release("v0.4.0").tag("ui", "v0.4.1").build());
    UpdateResult result = UpdateApplier.apply(cluster, plan, ApplyOptions.defaults());

    assertThat(UpdateReport.text(result))
        .isEqualTo(
            """
            Update result:
            WORKLOAD             COMPONENTS  STATUS   DETAIL
            mcp-platform/mcp-ui  ui          updated  -
            """);
  }

  @Test
  void aCrdChangeTheSafetyGateBlocksShowsTheGatesReasonInTextAndJson() {
    String name = "widgets.mcpruntime.org";
    String schema =
        "{type: object, properties: {spec: {type: object, properties: {size: {type: integer},"
            + " color: {type: string}}}}}";
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putCrd(
        name, CrdBundle.parse(widgets(name, "v1", schema)).crds().get(0).spec(), List.of("v1"));
    UpdatePlan plan = plan(cluster, release("v0.4.0").crds(widgets(name, "v2", schema)).build());

    String reason =
        "version v1: stored version removed (status.storedVersions lists it, so objects may still"
            + " be stored at v1 and could no longer be read); pass --allow-unsafe-crd-changes to"
            + " apply anyway";
    assertThat(UpdateReport.text(plan))
        .contains(
            "CustomResourceDefinitions:\n"
                + "CRD                     ACTION   REASON\n"
                + "widgets.mcpruntime.org  blocked  "
                + reason
                + "\n");
    assertThat(UpdateReport.json(true, plan, null))
        .contains("\"action\": \"blocked\",")
        .contains("\"reason\": \"version v1: stored version removed");
  }

  /** A Widget CRD serving and storing one version. */
  private static String widgets(String name, String version, String schema) {
    return "apiVersion: apiextensions.k8s.io/v1\n"
        + "kind: CustomResourceDefinition\n"
        + "metadata: {name: "
        + name
        + "}\n"
        + "spec:\n"
        + "  group: mcpruntime.org\n"
        + "  names: {kind: Widget, plural: widgets}\n"
        + "  scope: Namespaced\n"
        + "  versions: [{name: "
        + version
        + ", served: true, storage: true, schema: {openAPIV3Schema: "
        + schema
        + "}}]\n";
  }

  @Test
  void theJsonOfTheSamePlanIsTheSame() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").publishImage(image("ui", "v0.4.0"), D1);
    PlatformRelease release = release("v0.5.0").digest("platform-api", D2).build();

    UpdatePlan first = plan(cluster, release);
    UpdatePlan second = plan(cluster, release);

    assertThat(UpdateReport.json(true, second, null))
        .isEqualTo(UpdateReport.json(true, first, null));
  }

  private static String golden(String name) {
    try (InputStream in =
        Objects.requireNonNull(UpdateReportTest.class.getResourceAsStream(name), name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
