package dev.capstan.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ResourceRef;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Objects of a Kubernetes client library's model as payloads, as docs/manifests.md shows them:
 * client-java's directly, fabric8's through Jackson (its models are Jackson-annotated), each
 * snippet the code between its markers here.
 */
class ClientModelsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static String block(String name) throws IOException {
    return ReadmeTest.block("ClientModelsTest", name);
  }

  @Test
  void aClientJavaModelIsAPayloadAsItIs() throws IOException {
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();
    // client-java:start
    // client-java's models, as they are (release-k8s converts them with client-java's own JSON)
    V1ConfigMap settings =
        new V1ConfigMap()
            .apiVersion("v1")
            .kind("ConfigMap")
            .metadata(new V1ObjectMeta().namespace("shop").name("settings"))
            .data(Map.of("level", "info"));
    releases.cast(
        ReleaseInput.of("shop", "settings", Payloads.builder().manifest(settings).build()));
    // client-java:end

    assertThat(
            cluster
                .object(ResourceRef.of(Kind.CONFIG_MAP, "shop", "settings"))
                .orElseThrow()
                .get("data"))
        .isEqualTo(Map.of("level", "info"));
    assertThat(Files.readString(ROOT.resolve("docs/manifests.md")))
        .contains("```java\n" + block("client-java") + "```\n");
  }

  @Test
  void aFabric8ModelIsAPayloadThroughJackson() throws IOException {
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
    ReleaseController releases = ReleaseController.builder(cluster, cluster).build();
    // fabric8:start
    // fabric8's models are Jackson-annotated: Jackson writes one as the tree a manifest is
    Service web =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace("shop")
            .withName("web")
            .endMetadata()
            .withNewSpec()
            .addToSelector("app", "web")
            .addNewPort()
            .withName("http")
            .withPort(80)
            .withTargetPort(new IntOrString("http"))
            .endPort()
            .endSpec()
            .build();
    Map<String, Object> tree = new ObjectMapper().convertValue(web, new TypeReference<>() {});
    releases.cast(ReleaseInput.of("shop", "web", Payloads.builder().manifest(tree).build()));
    // fabric8:end

    Manifest cast = cluster.object(ResourceRef.of(Kind.SERVICE, "shop", "web")).orElseThrow();
    assertThat(cast.get("apiVersion")).isEqualTo("v1");
    assertThat(cast.get("spec"))
        .isEqualTo(
            Map.of(
                "selector",
                Map.of("app", "web"),
                "ports",
                List.of(Map.of("name", "http", "port", 80, "targetPort", "http"))));
    assertThat(Files.readString(ROOT.resolve("docs/manifests.md")))
        .contains("```java\n" + block("fabric8") + "```\n");
  }
}
