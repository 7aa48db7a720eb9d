package dev.capstan.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ManifestConverter;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Objects of a client library's model go into payloads as they are, through the {@link
 * ManifestConverter} the class path provides (this test's: {@code
 * META-INF/services/dev.capstan.release.model.ManifestConverter} in its resources).
 */
class ModelManifestsTest {
  /** A client library's model of a ConfigMap, as a test stands for one. */
  record ConfigMapModel(String namespace, String name, Map<String, String> data) {}

  /** The converter the test's service file names. */
  public static final class ConfigMapModels implements ManifestConverter {
    /** Made by the service loader. */
    public ConfigMapModels() {}

    @Override
    public boolean accepts(Object model) {
      return model instanceof ConfigMapModel;
    }

    @Override
    public Map<String, ?> toTree(Object model) {
      ConfigMapModel m = (ConfigMapModel) model;
      return Map.of(
          "apiVersion",
          "v1",
          "kind",
          "ConfigMap",
          "metadata",
          Map.of("namespace", m.namespace(), "name", m.name()),
          "data",
          m.data());
    }
  }

  @Test
  void aModelObjectBecomesTheManifestItsConverterWrites() {
    ConfigMapModel settings = new ConfigMapModel("shop", "settings", Map.of("level", "info"));

    Payloads payloads = Payloads.builder().manifest((Object) settings).build();
    Manifest manifest = Manifest.ofModel(settings);

    ResourceRef ref = ResourceRef.of(Kind.CONFIG_MAP, "shop", "settings");
    assertThat(payloads.refs()).containsExactly(ref);
    assertThat(payloads.get(ref)).contains(manifest);
    assertThat(manifest.content())
        .isEqualTo(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "ConfigMap",
                "metadata",
                Map.of("namespace", "shop", "name", "settings"),
                "data",
                Map.of("level", "info")));
  }

  @Test
  void aMapAndAManifestGivenAsObjectsAreTakenAsThemselves() {
    Object tree = Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "a"));
    Object manifest =
        Manifest.of(
            Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", "b")),
            "shop");

    Payloads payloads =
        Payloads.builder().namespace("shop").manifest(tree).manifest(manifest).build();

    assertThat(payloads.refs())
        .containsExactly(
            ResourceRef.of(Kind.CONFIG_MAP, "shop", "a"),
            ResourceRef.of(Kind.CONFIG_MAP, "shop", "b"));
  }

  @Test
  void anObjectNoConverterKnowsIsRefusedNamingItsType() {
    Object unknown = new java.util.concurrent.atomic.AtomicInteger(1);

    assertThatThrownBy(() -> Payloads.builder().manifest(unknown))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a java.util.concurrent.atomic.AtomicInteger is no manifest: give a Map tree, a Manifest, or an object"
                + " of a client library whose ManifestConverter is on the class path (release-k8s"
                + " converts client-java's models; for fabric8's, see docs/manifests.md, \"Objects"
                + " of a client library\")");
    assertThatThrownBy(() -> Manifest.ofModel(unknown))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("a java.util.concurrent.atomic.AtomicInteger is no manifest");
  }
}
