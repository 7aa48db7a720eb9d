package dev.capstan.cli.update;

import static dev.capstan.update.McpRuntime.REG;
import static dev.capstan.update.McpRuntime.UI;
import static dev.capstan.update.McpRuntime.catalog;
import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.InvalidOptionsException;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.PlanWarning;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The library's reasons and messages in the command line's words: the flag texts {@code capstan
 * update} prints, byte for byte as before the library knew no flags (the planner's tests check the
 * codes and the library's own words).
 */
class WordingTest {
  private static final String CM_OPT_IN = "opt-in; pass --include cert-manager";
  private static final String NAME = "widgets.mcpruntime.org";

  private static String reason(UpdatePlan plan, String component) {
    PlanRow row =
        plan.rows().stream().filter(r -> r.component().equals(component)).findFirst().orElseThrow();
    return Wording.reason(row.reason());
  }

  @Test
  void optInComponentsNameTheIncludeFlagWithTheirGroup() {
    UpdatePlan plan = plan(cluster("v0.4.0"), release("v0.4.0").build());

    assertThat(reason(plan, "cert-manager-controller")).isEqualTo(CM_OPT_IN);
    assertThat(reason(plan, "cert-manager-webhook")).isEqualTo(CM_OPT_IN);
    assertThat(reason(plan, "cert-manager-cainjector")).isEqualTo(CM_OPT_IN);
    assertThat(reason(plan, "mcp-auth")).isEqualTo("opt-in; pass --include auth");
    assertThat(reason(plan, "ui")).isEqualTo("image matches release");
  }

  @Test
  void componentsLeftOutByOnlyNameTheOnlyFlag() {
    UpdatePlan plan =
        plan(
            cluster("v0.4.0"),
            release("v0.5.0").build(),
            new Selection(List.of(" ui ", ""), Set.of(), false));

    assertThat(reason(plan, "operator")).isEqualTo("not selected (--only)");
    assertThat(reason(plan, "cert-manager-controller")).isEqualTo("not selected (--only)");
    assertThat(
            reason(plan(cluster("v0.4.0"), release("v0.5.0").build()), "cert-manager-controller"))
        .isEqualTo(CM_OPT_IN);
  }

  @Test
  void aDowngradeNamesTheAllowDowngradeFlag() {
    assertThat(reason(plan(cluster("v0.6.0"), release("v0.5.0").build()), "ui"))
        .isEqualTo("downgrade v0.6.0 -> v0.5.0; pass --allow-downgrade to permit");

    InMemoryPlatformCluster latest = cluster("v0.4.0");
    latest.putDeployment(
        DeploymentState.of(UI, ContainerState.of("ui", REG + "/mcp-ui:latest"))
            .withAnnotation("mcpruntime.org/platform-version", "v0.6.0"));
    assertThat(reason(plan(latest, release("v0.5.0").build()), "ui"))
        .isEqualTo("downgrade v0.6.0 -> v0.5.0; pass --allow-downgrade to permit");

    String tag = "v0.6.3-g" + "a".repeat(40);
    assertThat(reason(plan(cluster("v0.6.4"), release("v0.6.3").tag("ui", tag).build()), "ui"))
        .isEqualTo("downgrade v0.6.4 -> v0.6.3; pass --allow-downgrade to permit");
  }

  @Test
  void unknownOnlyNamesAndIncludeGroupsNameTheirFlags() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    byte[] manifest =
        PlatformReleases.toJson(release("v0.5.0").build()).getBytes(StandardCharsets.UTF_8);
    UpdateCommand command =
        UpdateCommand.builder(catalog(), cluster).manifestLoader(location -> manifest).build();
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    UpdateOptions options = UpdateOptions.defaults().withReleaseManifest("m.json").withDryRun(true);

    assertThatThrownBy(() -> command.run(options.withOnly("traefik"), out))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessage(
            "invalid update options: --only has unknown component(s) traefik; known components:"
                + " cert-manager-controller, cert-manager-webhook, cert-manager-cainjector, operator,"
                + " gateway-proxy, platform-api, runtime-api, analytics-api, ingest, processor, ui,"
                + " doctor-smoke, mcp-auth");
    assertThatThrownBy(() -> command.run(options.withIncludeGroups("traefik"), out))
        .isInstanceOf(InvalidOptionsException.class)
        .hasMessage(
            "invalid update options: --include has unknown group(s) traefik; known groups: auth,"
                + " cert-manager");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void aCrdChangeWithoutABundleNamesTheCrdsFlag() {
    PlatformRelease base = release("v0.5.0").build();
    PlatformRelease noBundle =
        new PlatformRelease(
            base.apiVersion(), base.kind(), "v0.5.0", "", true, "", base.components());

    assertThatThrownBy(() -> UpdateCommand.checkCrdBundle(noBundle, Selection.defaults()))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(
            "invalid release manifest for version v0.5.0: crdChange is set but the release has no"
                + " embedded crds; pass --crds <file> with the release's CRD bundle");
  }

  @Test
  void aCrdChangeTheSafetyGateBlocksNamesTheAllowUnsafeCrdChangesFlag() {
    assertThat(
            Wording.reason(
                CrdResult.withReason(
                    NAME,
                    CrdResult.BLOCKED,
                    "version v1: stored version no longer served (objects stored at v1 could no"
                        + " longer be read)")))
        .isEqualTo(
            "version v1: stored version no longer served (objects stored at v1 could no longer"
                + " be read); pass --allow-unsafe-crd-changes to apply anyway");
    assertThat(
            Wording.reason(
                CrdResult.withReason(
                    NAME,
                    CrdResult.BLOCKED,
                    "version v2: storage version changes from v1 to v2 without a path (v1 must stay"
                        + " served so objects stored at it can be read and migrated)")))
        .isEqualTo(
            "version v2: storage version changes from v1 to v2 without a path (v1 must stay"
                + " served so objects stored at it can be read and migrated); pass"
                + " --allow-unsafe-crd-changes to apply anyway");
    assertThat(
            Wording.reason(
                CrdResult.withReason(
                    NAME,
                    CrdResult.BLOCKED,
                    "version v1: schema narrowed: property spec.color removed; version v1: schema"
                        + " narrowed: required field spec.size added")))
        .isEqualTo(
            "version v1: schema narrowed: property spec.color removed; version v1: schema"
                + " narrowed: required field spec.size added; pass --allow-unsafe-crd-changes"
                + " to apply anyway");
    assertThat(Wording.reason(CrdResult.withReason(NAME, "update", "version v1: schema narrowed")))
        .isEqualTo("version v1: schema narrowed");
    assertThat(Wording.reason(CrdResult.of(NAME, "create"))).isEmpty();
  }

  @Test
  void aCrdChangeSkippedBecauseOfOnlyNamesTheOnlyFlag() {
    PlatformRelease release =
        release("v0.5.0").crds(crd("mcpservers", "MCPServer", "v1alpha1")).build();

    UpdatePlan plan = plan(cluster("v0.4.0"), release, Selection.defaults().withOnly("ui"));

    assertThat(plan.warnings())
        .extracting(Wording::warning)
        .containsExactly(
            "release v0.5.0 changes CustomResourceDefinitions but --only is set, so CRD apply is"
                + " skipped; re-run without --only to apply them");
  }

  @Test
  void anUnsafeCrdChangeLetThroughNamesTheAllowUnsafeCrdChangesFlag() {
    String finding =
        "version v1: stored version removed (status.storedVersions lists it, so objects may still"
            + " be stored at v1 and could no longer be read)";

    assertThat(
            Wording.warning(
                PlanWarning.of(PlanWarning.Code.UNSAFE_CRD_CHANGE_APPLIED, NAME, finding)))
        .isEqualTo(
            "CRD widgets.mcpruntime.org: unsafe change applied because --allow-unsafe-crd-changes"
                + " is set: "
                + finding);
    assertThat(Wording.warning(PlanWarning.of(PlanWarning.Code.CRDS_APPLIED_FIRST, "v0.4.0", NAME)))
        .isEqualTo(
            "release v0.4.0 applies CustomResourceDefinitions before image rollouts: " + NAME);
  }
}
