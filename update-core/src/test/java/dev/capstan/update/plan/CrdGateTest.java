package dev.capstan.update.plan;

import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.manifest.CrdBundle;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.result.UpdateResult;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The CRD safety gate, one test per rule, through the pure planner over the in-memory cluster. */
class CrdGateTest {
  private static final String NAME = "widgets.mcpruntime.org";
  private static final String OBJECT_SCHEMA =
      "{type: object, properties: {spec: {type: object, properties: {size: {type: integer},"
          + " color: {type: string}}}}}";

  /** A Widget CRD whose {@code versions} list is the given YAML flow sequence. */
  private static String widgets(String versions) {
    return "apiVersion: apiextensions.k8s.io/v1\n"
        + "kind: CustomResourceDefinition\n"
        + "metadata: {name: "
        + NAME
        + "}\n"
        + "spec:\n"
        + "  group: mcpruntime.org\n"
        + "  names: {kind: Widget, plural: widgets}\n"
        + "  scope: Namespaced\n"
        + "  versions: "
        + versions
        + "\n";
  }

  private static String version(String name, boolean served, boolean storage, String schema) {
    return "{name: "
        + name
        + ", served: "
        + served
        + ", storage: "
        + storage
        + ", schema: {openAPIV3Schema: "
        + schema
        + "}}";
  }

  private static final String V1_ONLY = "[" + version("v1", true, true, OBJECT_SCHEMA) + "]";

  private static Map<String, @Nullable Object> spec(String crdYaml) {
    return CrdBundle.parse(crdYaml).crds().get(0).spec();
  }

  private static PlatformRelease offering(String crdYaml) {
    return release("v0.4.0").crds(crdYaml).build();
  }

  /** The platform at v0.4.0 with the Widget CRD at v1 only, objects stored at v1. */
  private static InMemoryPlatformCluster withV1Widgets() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putCrd(NAME, spec(widgets(V1_ONLY)), List.of("v1"));
    return cluster;
  }

  @Test
  void removingAStoredVersionIsBlockedBeforeAnyWrite() {
    InMemoryPlatformCluster cluster = withV1Widgets();
    PlatformRelease release =
        offering(widgets("[" + version("v2", true, true, OBJECT_SCHEMA) + "]"));

    UpdatePlan plan = plan(cluster, release);

    String reason =
        "version v1: stored version removed (status.storedVersions lists it, so objects may still"
            + " be stored at v1 and could no longer be read)";
    assertThat(plan.crdPreview())
        .containsExactly(CrdResult.withReason(NAME, CrdResult.BLOCKED, reason));
    assertThat(plan.blockedCrds()).hasSize(1);
    assertThat(plan.isBlocked()).isTrue();
    assertThat(plan.applyCrds()).isFalse();
    assertThat(plan.warnings()).isEmpty();
    assertThatThrownBy(() -> UpdateApplier.apply(cluster, plan, ApplyOptions.defaults()))
        .isInstanceOf(UpdateBlockedException.class)
        .hasMessage("update blocked for CRD widgets.mcpruntime.org; see plan reasons");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void aStoredVersionThatIsNoLongerServedIsBlocked() {
    InMemoryPlatformCluster cluster = withV1Widgets();
    PlatformRelease release =
        offering(
            widgets(
                "["
                    + version("v1", false, false, OBJECT_SCHEMA)
                    + ", "
                    + version("v2", true, true, OBJECT_SCHEMA)
                    + "]"));

    UpdatePlan plan = plan(cluster, release);

    assertThat(plan.crdPreview())
        .containsExactly(
            CrdResult.withReason(
                NAME,
                CrdResult.BLOCKED,
                "version v1: stored version no longer served (objects stored at v1 could no longer"
                    + " be read)"));
  }

  @Test
  void aStorageVersionChangeWithoutAPathIsBlocked() {
    // A CRD whose status reports no stored versions: only the storage flags tell.
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putCrd(NAME, spec(widgets(V1_ONLY)), List.of());
    PlatformRelease release =
        offering(
            widgets(
                "["
                    + version("v1", false, false, OBJECT_SCHEMA)
                    + ", "
                    + version("v2", true, true, OBJECT_SCHEMA)
                    + "]"));

    UpdatePlan plan = plan(cluster, release);

    assertThat(plan.crdPreview())
        .containsExactly(
            CrdResult.withReason(
                NAME,
                CrdResult.BLOCKED,
                "version v2: storage version changes from v1 to v2 without a path (v1 must stay"
                    + " served so objects stored at it can be read and migrated)"));
  }

  @Test
  void aStorageVersionChangeThatKeepsTheOldVersionServedIsSafe() {
    InMemoryPlatformCluster cluster = withV1Widgets();
    PlatformRelease release =
        offering(
            widgets(
                "["
                    + version("v1", true, false, OBJECT_SCHEMA)
                    + ", "
                    + version("v2", true, true, OBJECT_SCHEMA)
                    + "]"));

    UpdatePlan plan = plan(cluster, release);

    assertThat(plan.crdPreview()).containsExactly(CrdResult.of(NAME, "update"));
    assertThat(plan.crdNames()).containsExactly(NAME);
  }

  @Test
  void aNarrowedSchemaIsBlockedWithEveryFinding() {
    InMemoryPlatformCluster cluster = withV1Widgets();
    String narrowed =
        "{type: object, properties: {spec: {type: object, required: [size], properties: {size:"
            + " {type: integer}}}}}";
    PlatformRelease release = offering(widgets("[" + version("v1", true, true, narrowed) + "]"));

    UpdatePlan plan = plan(cluster, release);

    assertThat(plan.crdPreview())
        .containsExactly(
            CrdResult.withReason(
                NAME,
                CrdResult.BLOCKED,
                "version v1: schema narrowed: property spec.color removed; version v1: schema"
                    + " narrowed: required field spec.size added"));
  }

  @Test
  void aWidenedSchemaIsSafe() {
    InMemoryPlatformCluster cluster = withV1Widgets();
    String widened =
        "{type: object, properties: {spec: {type: object, properties: {size: {type: integer},"
            + " color: {type: string}, shape: {type: string}}}}}";
    PlatformRelease release = offering(widgets("[" + version("v1", true, true, widened) + "]"));

    assertThat(plan(cluster, release).crdPreview()).containsExactly(CrdResult.of(NAME, "update"));
  }

  @Test
  void theOptionLetsAnUnsafeChangeThroughWithAWarningAndTheApplyForgetsTheDroppedVersion() {
    InMemoryPlatformCluster cluster = withV1Widgets();
    PlatformRelease release =
        offering(widgets("[" + version("v2", true, true, OBJECT_SCHEMA) + "]"));

    UpdatePlan plan = plan(cluster, release, Selection.defaults().withAllowUnsafeCrdChanges(true));

    String finding =
        "version v1: stored version removed (status.storedVersions lists it, so objects may still"
            + " be stored at v1 and could no longer be read)";
    assertThat(plan.crdPreview()).containsExactly(CrdResult.withReason(NAME, "update", finding));
    assertThat(plan.isBlocked()).isFalse();
    assertThat(plan.warnings())
        .containsExactly(
            PlanWarning.of(PlanWarning.Code.UNSAFE_CRD_CHANGE_APPLIED, NAME, finding),
            PlanWarning.of(PlanWarning.Code.CRDS_APPLIED_FIRST, "v0.4.0", NAME));

    UpdateResult result = UpdateApplier.apply(cluster, plan, ApplyOptions.defaults());

    assertThat(result.failed()).isFalse();
    assertThat(result.crds()).containsExactly(CrdResult.of(NAME, "configured"));
    assertThat(cluster.writes()).containsExactly("apply crd " + NAME);
    assertThat(cluster.crd(NAME).orElseThrow().storedVersions()).containsExactly("v2");
  }

  @Test
  void theSameBundleTwiceIsSkippedTheSecondTime() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    // Written out with what the API server would add, and an explicit default it would drop:
    // both compare equal to the stored CRD.
    String bundle =
        widgets(V1_ONLY) + "  conversion: {strategy: None}\n" + "  preserveUnknownFields: false\n";
    PlatformRelease release = offering(bundle);

    UpdateApplier.apply(cluster, plan(cluster, release), ApplyOptions.defaults());
    UpdatePlan second = plan(cluster, release);

    assertThat(cluster.writes()).containsExactly("apply crd " + NAME);
    assertThat(second.crdPreview()).containsExactly(CrdResult.of(NAME, CrdResult.SKIPPED));
    assertThat(second.needsApply()).isFalse();
    assertThat(UpdateApplier.apply(cluster, second, ApplyOptions.defaults()).crds()).isEmpty();
    assertThat(cluster.writes()).containsExactly("apply crd " + NAME);
  }
}
