package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ResourceRef;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStrategy;
import io.kubernetes.client.openapi.models.V1EmptyDirVolumeSource;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1RollingUpdateDeployment;
import io.kubernetes.client.openapi.models.V1Volume;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** client-java's models go into payloads as they are, written as the API server reads them. */
class ClientJavaManifestsTest {
  private static V1Deployment web() {
    return new V1Deployment()
        .apiVersion("apps/v1")
        .kind("Deployment")
        .metadata(new V1ObjectMeta().namespace("shop").name("web"))
        .spec(
            new V1DeploymentSpec()
                .replicas(2)
                .selector(new V1LabelSelector().matchLabels(Map.of("app", "web")))
                .strategy(
                    new V1DeploymentStrategy()
                        .type("RollingUpdate")
                        .rollingUpdate(
                            new V1RollingUpdateDeployment()
                                .maxSurge(new IntOrString("25%"))
                                .maxUnavailable(new IntOrString(0))))
                .template(
                    new V1PodTemplateSpec()
                        .metadata(new V1ObjectMeta().labels(Map.of("app", "web")))
                        .spec(
                            new V1PodSpec()
                                .containers(
                                    List.of(
                                        new V1Container()
                                            .name("web")
                                            .image("acme/web:1.0")
                                            .resources(
                                                new V1ResourceRequirements()
                                                    .requests(
                                                        Map.of(
                                                            "cpu",
                                                            Quantity.fromString("500m")))))))));
  }

  @Test
  void aDeploymentModelIsTheManifestTheApiServerWouldRead() {
    Manifest manifest = Manifest.ofModel(web());

    assertThat(manifest.ref()).isEqualTo(ResourceRef.of(Kind.DEPLOYMENT, "shop", "web"));
    assertThat(manifest.get("spec.replicas")).isEqualTo(2L);
    assertThat(manifest.get("spec.strategy.rollingUpdate.maxSurge")).isEqualTo("25%");
    assertThat(manifest.get("spec.strategy.rollingUpdate.maxUnavailable")).isEqualTo(0L);
    assertThat(manifest.get("spec.template.spec.containers"))
        .isEqualTo(
            List.of(
                Map.of(
                    "name",
                    "web",
                    "image",
                    "acme/web:1.0",
                    "resources",
                    Map.of("requests", Map.of("cpu", "500m")))));
    assertThat(manifest.content()).containsOnlyKeys("apiVersion", "kind", "metadata", "spec");
    assertThat(manifest.get("metadata")).isEqualTo(Map.of("namespace", "shop", "name", "web"));
  }

  @Test
  void anEmptyObjectIsKeptAndAnEmptyListOrMapLeftOut() {
    V1Deployment web = web();
    web.getSpec()
        .getTemplate()
        .getSpec()
        .volumes(List.of(new V1Volume().name("scratch").emptyDir(new V1EmptyDirVolumeSource())))
        .tolerations(List.of());

    Manifest manifest = Manifest.ofModel(web);

    assertThat(manifest.get("spec.template.spec.volumes"))
        .isEqualTo(List.of(Map.of("name", "scratch", "emptyDir", Map.of())));
    assertThat(manifest.get("spec.template.spec.tolerations")).isNull();
  }

  @Test
  void modelsAndTreesCastTogether() {
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();
    V1ConfigMap settings =
        new V1ConfigMap()
            .apiVersion("v1")
            .kind("ConfigMap")
            .metadata(new V1ObjectMeta().namespace("shop").name("settings"))
            .data(Map.of("level", "info"));

    Payloads payloads = Payloads.builder().manifest(settings).manifest(web()).build();
    releases.cast(ReleaseInput.of("shop", "web", payloads));

    assertThat(cluster.writes())
        .containsExactly(
            "apply:ConfigMap/shop/settings", "apply:apps/Deployment/shop/web", "verify");
    assertThat(
            cluster
                .object(ResourceRef.of(Kind.CONFIG_MAP, "shop", "settings"))
                .orElseThrow()
                .get("data.level"))
        .isEqualTo("info");
  }
}
