package dev.capstan.update.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.update.cluster.ContainerPatch;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.InventoryQuery;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.RolloutProgress;
import dev.capstan.update.cluster.Workload;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryPlatformClusterTest {
  private static final Workload WEB = Workload.of("apps", "web");
  private static final String DIGEST = "sha256:" + "c".repeat(64);
  private final InMemoryPlatformCluster cluster = InMemoryPlatformCluster.create();

  @Test
  void simulatedPodsReportPublishedDigestsOfTheirImages() {
    cluster
        .publishImage("reg.example/web:v1", DIGEST)
        .putDeployment(DeploymentState.of(WEB, ContainerState.of("web", "reg.example/web:v1")), 2);

    InventorySnapshot snapshot =
        cluster.inventory(
            new InventoryQuery(List.of(WEB, Workload.of("apps", "gone")), List.of("x.y.z")));

    assertThat(snapshot.deployments()).extracting(DeploymentState::workload).containsExactly(WEB);
    assertThat(snapshot.pods()).hasSize(2);
    assertThat(snapshot.pods().get(0).labels()).isEqualTo(Map.of("app", "web"));
    assertThat(snapshot.pods().get(0).containers())
        .containsExactly(
            new ContainerStatus("web", true, "docker-pullable://reg.example/web@" + DIGEST));
    assertThat(snapshot.crds()).isEmpty();
  }

  @Test
  void patchStartsARolloutThatFailsForANeverReadyImage() {
    cluster
        .neverReady("reg.example/web:v2")
        .putDeployment(DeploymentState.of(WEB, ContainerState.of("web", "reg.example/web:v1")));
    assertThat(cluster.rolloutStatus(WEB).orElseThrow().progress("web"))
        .isInstanceOf(RolloutProgress.Done.class);

    cluster.patch(patch("reg.example/web:v2"));

    var status = cluster.rolloutStatus(WEB).orElseThrow();
    assertThat(status.generation()).isEqualTo(2);
    assertThat(status.progress("web")).isInstanceOf(RolloutProgress.Failed.class);
    assertThat(
            cluster
                .inventory(new InventoryQuery(List.of(WEB), List.of()))
                .pods()
                .get(0)
                .containers()
                .get(0)
                .ready())
        .isFalse();

    cluster.patch(patch("reg.example/web:v1"));
    assertThat(cluster.rolloutStatus(WEB).orElseThrow().progress("web"))
        .isInstanceOf(RolloutProgress.Done.class);
    assertThat(cluster.patches())
        .extracting(p -> p.containers().get(0).image())
        .containsExactly("reg.example/web:v2", "reg.example/web:v1");
    assertThat(cluster.writes())
        .containsExactly("patch deployment apps/web", "patch deployment apps/web");
  }

  @Test
  void faultsFailTheChosenCallsOnly() {
    cluster.putDeployment(DeploymentState.of(WEB, ContainerState.of("web", "reg.example/web:v1")));
    cluster.faults().failNth(Operation.PATCH, "apps/web", 2, "conflict");
    cluster.faults().failAlways(Operation.GET_CRD, "*", "forbidden");

    cluster.patch(patch("reg.example/web:v2"));
    assertThatThrownBy(() -> cluster.patch(patch("reg.example/web:v3")))
        .isInstanceOf(ClusterException.class)
        .hasMessage("patch apps/web: conflict");
    cluster.patch(patch("reg.example/web:v4"));
    assertThatThrownBy(() -> cluster.crd("a.b.c")).hasMessage("get_crd a.b.c: forbidden");
    assertThatThrownBy(() -> cluster.crd("d.e.f")).hasMessage("get_crd d.e.f: forbidden");
    assertThat(cluster.patches()).hasSize(2);
  }

  @Test
  void patchingAnAbsentDeploymentOrContainerIsAClusterError() {
    assertThatThrownBy(() -> cluster.patch(patch("x:1")))
        .isInstanceOf(ClusterException.class)
        .hasMessage("patch apps/web: deployment not found");
    cluster.putDeployment(
        DeploymentState.of(WEB, ContainerState.of("other", "reg.example/web:v1")));
    assertThatThrownBy(() -> cluster.patch(patch("x:1")))
        .isInstanceOf(ClusterException.class)
        .hasMessage("patch apps/web: deployment apps/web has no container \"web\"");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void crdApplyCreatesThenConfigures() {
    Map<String, Object> doc = Map.of("spec", Map.of("group", "b.c"));

    assertThat(cluster.applyCrd("a.b.c", doc)).isEqualTo("created");
    assertThat(cluster.applyCrd("a.b.c", doc)).isEqualTo("configured");
    assertThat(cluster.crd("a.b.c").orElseThrow().condition("Established").orElseThrow().holds())
        .isTrue();
    assertThat(cluster.writes()).containsExactly("apply crd a.b.c", "apply crd a.b.c");
  }

  private static DeploymentPatch patch(String image) {
    return new DeploymentPatch(
        WEB, List.of(new ContainerPatch.SetImage("web", image)), Map.of(), Map.of());
  }

  @Test
  void stateRoundTripsDeploymentsPodsCrdsDigestsAndNeverReadyImages() {
    cluster
        .publishImage("reg.example/web:v1", DIGEST)
        .neverReady("reg.example/web:v9")
        .putDeployment(
            new DeploymentState(
                WEB,
                Map.of("app.kubernetes.io/part-of", "shop"),
                Map.of("note", "x"),
                Map.of("app", "web"),
                List.of(
                    new ContainerState(
                        "web",
                        "reg.example/web:v1",
                        List.of(dev.capstan.update.cluster.EnvVar.of("A", "1"))))),
            3)
        .putCrd("widgets.example.com", Map.of("group", "example.com", "versions", List.of("v1")));

    InMemoryPlatformCluster copy = InMemoryPlatformCluster.importState(cluster.exportState());

    InventoryQuery everything = new InventoryQuery(List.of(WEB), List.of("widgets.example.com"));
    assertThat(copy.inventory(everything)).isEqualTo(cluster.inventory(everything));
    assertThat(copy.info()).isEqualTo(cluster.info());
    copy.patch(patch("reg.example/web:v9"));
    assertThat(copy.rolloutStatus(WEB).orElseThrow().progress("web"))
        .isInstanceOf(RolloutProgress.Failed.class);
    assertThat(copy.exportState()).isNotEqualTo(cluster.exportState());
    assertThatThrownBy(
            () ->
                InMemoryPlatformCluster.importState(
                    "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format capstan.dev/in-memory-platform.v1");
  }
}
