package dev.capstan.cli.update;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.cli.demo.DemoPlatform;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.catalog.VersionPolicy;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command over a catalog and a manifest file, as the library tours run them by hand: the Acme
 * platform of the {@code update-core} README in a dry run, and the demo platform of {@code
 * docs/platform-updates.md} updated to the example release.
 */
class UpdateCommandOnAHostCatalogTest {

  @Test
  void aDryRunPrintsThePlanWithItsOptInRowAndTheDryRunSummary(@TempDir Path dir)
      throws IOException {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
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
    Path manifestFile =
        Files.writeString(
            dir.resolve("platform-manifest.yaml"),
            """
            apiVersion: acme.dev/v1alpha1
            kind: PlatformRelease
            version: v1.1.0
            components:
              - {name: operator, repository: acme/operator, tag: v1.1.0}
              - {name: sidecar, repository: acme/sidecar, tag: v1.1.0}
              - {name: api, repository: acme/api, tag: v1.1.0}
            """);

    UpdateOutcome dryRun =
        UpdateCommand.builder(catalog, cluster)
            .manifestLoader(ManifestLoader.files())
            .build()
            .run(
                UpdateOptions.defaults()
                    .withReleaseManifest(manifestFile.toString())
                    .withDryRun(true),
                out);

    assertThat(dryRun.plan().changed()).hasSize(3);
    assertThat(printed.toString(UTF_8))
        .containsPattern("ingress +ingress/ingress-nginx +skip")
        .contains("opt-in; pass --include ingress")
        .contains("Dry run (plan only; no CRD apply, builds, or rollouts were attempted)");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void aConfirmedUpdateOfTheDemoPlatformFromTheExampleManifestPrintsTheResult() {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(printed, true, UTF_8);
    Catalog catalog = DemoPlatform.catalog();
    InMemoryPlatformCluster platform = DemoPlatform.installed(catalog, "v0.4.0");

    UpdateOutcome outcome =
        UpdateCommand.builder(catalog, platform)
            .manifestLoader(ManifestLoader.files())
            .build()
            .run(
                UpdateOptions.defaults()
                    .withReleaseManifest("../examples/platform/v0.5.0.yaml")
                    .withYes(true),
                out);

    assertThat(outcome.result()).isNotNull();
    assertThat(platform.writes()).hasSize(4);
    assertThat(printed.toString(UTF_8)).contains("Update result:");
  }
}
