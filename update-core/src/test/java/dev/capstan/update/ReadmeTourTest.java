package dev.capstan.update;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.catalog.VersionPolicy;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API tour of {@code update-core/README.md}: the code between the tour markers is compiled and
 * run here, and the README must contain it verbatim.
 */
class ReadmeTourTest {

  @Test
  void tourRunsAndTheReadmeShowsIt() throws IOException {
    // tour:start
    // 1. The host's catalog: which workload each component's image lives in, in rollout order.
    //    (Or Catalog.load(yamlBytes, "catalog.yaml"); see "Catalog YAML" below.)
    Catalog catalog =
        Catalog.builder()
            .platformName("Acme Platform")
            .manifestApiVersion("acme.dev/v1alpha1")
            .metadataKeys("acme.dev", "acme")
            .installedCheck("acme-system", "acme-operator", "install Acme first")
            .component(
                CatalogComponent.container("operator", "acme-system", "acme-operator", "manager")
                    .withDefaultRepository("acme/operator")
                    .withBuilt(true))
            .component(
                CatalogComponent.envVar(
                        "sidecar", "acme-system", "acme-operator", "manager", "SIDECAR_IMAGE")
                    .withDefaultRepository("acme/sidecar")
                    .withBuilt(true)
                    .withNote("tenant pods restart to pick up the new sidecar"))
            .component(
                CatalogComponent.container("api", "acme", "acme-api", "api")
                    .withDefaultRepository("acme/api")
                    .withBuilt(true))
            .component(
                CatalogComponent.container("ingress", "ingress", "ingress-nginx", "controller")
                    .withOptInGroup("ingress")
                    .withVersionPolicy(VersionPolicy.sameMinor("follow the ingress-nginx guide")))
            .preserved("Secrets", "PersistentVolumeClaims and their data")
            .build();

    // 2. A cluster: the in-memory one (KubernetesPlatformCluster lives in release-k8s).
    InMemoryPlatformCluster cluster = InMemoryPlatformCluster.create();
    cluster.putDeployment(
        DeploymentState.of(
            Workload.of("acme-system", "acme-operator"),
            new ContainerState(
                "manager",
                "reg.acme.dev/acme/operator:v1.0.0",
                List.of(EnvVar.of("SIDECAR_IMAGE", "reg.acme.dev/acme/sidecar:v1.0.0")))));
    cluster.putDeployment(
        DeploymentState.of(
            Workload.of("acme", "acme-api"),
            ContainerState.of("api", "reg.acme.dev/acme/api:v1.0.0")));
    cluster.neverReady("reg.acme.dev/acme/api:v1.1.0"); // this rollout will fail

    // 3. The release manifest, read strictly (YAML or JSON); every problem is reported at once.
    String yaml =
        """
        apiVersion: acme.dev/v1alpha1
        kind: PlatformRelease
        version: v1.1.0
        components:
          - {name: operator, repository: acme/operator, tag: v1.1.0}
          - {name: sidecar, repository: acme/sidecar, tag: v1.1.0}
          - {name: api, repository: acme/api, tag: v1.1.0}
        """;
    PlatformRelease release =
        PlatformReleases.parse(yaml.getBytes(UTF_8), "platform-manifest.yaml", catalog);

    // 4. Plan (pure: a function of the inventory snapshot), then apply.
    InventorySnapshot inventory = cluster.inventory(UpdatePlanner.query(catalog, release));
    UpdatePlan plan = UpdatePlanner.plan(inventory, release, catalog, Selection.defaults());
    UpdateResult result =
        UpdateApplier.apply(
            cluster, plan, ApplyOptions.defaults().withTimeout(Duration.ofMinutes(5)));
    // result.failed() is true: acme-api never became ready, so it and acme-operator were rolled
    // back in reverse order; cluster.patches() holds the four patches. The plan and the result
    // are values: a host renders them (capstan update prints them as tables or JSON).
    // tour:end

    assertThat(result.failed()).isTrue();
    assertThat(result.workloads())
        .extracting(w -> w.status())
        .containsExactly(WorkloadStatus.ROLLED_BACK, WorkloadStatus.ROLLED_BACK);
    assertThat(cluster.patches())
        .extracting(p -> p.workload().deployment())
        .containsExactly("acme-operator", "acme-api", "acme-api", "acme-operator");
    assertThat(plan.changed()).hasSize(3);

    assertThat(Files.readString(Path.of("README.md"))).contains(tour());
  }

  /** The tour's lines, dedented, as the README shows them. */
  private static String tour() throws IOException {
    List<String> lines =
        Files.readAllLines(Path.of("src/test/java/dev/capstan/update/ReadmeTourTest.java"));
    int start = lines.indexOf("    // tour:start");
    int end = lines.indexOf("    // tour:end");
    StringBuilder sb = new StringBuilder();
    for (String line : lines.subList(start + 1, end)) {
      sb.append(line.length() >= 4 ? line.substring(4) : line.strip()).append('\n');
    }
    return sb.toString();
  }
}
