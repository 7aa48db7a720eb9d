package dev.capstan.release.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelTest {
  @Test
  void keysAreTypeNamespaceName() {
    assertThat(ResourceRef.of(ResourceType.SERVICE, "default", "web").key())
        .isEqualTo("service/default/web");
    assertThat(ResourceRef.of(ResourceType.SECRET, "default", "creds").key())
        .isEqualTo("secret/default/creds");
    assertThat(ResourceRef.storageClass("fast").key()).isEqualTo("storage_class//fast");
    assertThat(ResourceRef.parse("storage_class//fast"))
        .isEqualTo(ResourceRef.storageClass("fast"));
    assertThat(ResourceRef.parse("volume/prod/data.v2"))
        .isEqualTo(ResourceRef.of(ResourceType.VOLUME, "prod", "data.v2"));
  }

  @Test
  void applyOrderIsNamespaceStorageClassVolumeConfigmapSecretServiceThenKey() {
    List<ResourceRef> refs =
        List.of(
            ResourceRef.parse("service/default/a"),
            ResourceRef.parse("secret/default/b"),
            ResourceRef.parse("secret/default/a"),
            ResourceRef.parse("configmap/default/a"),
            ResourceRef.parse("volume/default/a"),
            ResourceRef.storageClass("s"),
            ResourceRef.namespace("default"));

    assertThat(refs.stream().sorted(ResourceRef.APPLY_ORDER).map(ResourceRef::key))
        .containsExactly(
            "namespace//default",
            "storage_class//s",
            "volume/default/a",
            "configmap/default/a",
            "secret/default/a",
            "secret/default/b",
            "service/default/a");
    assertThat(refs.stream().sorted(ResourceRef.PRUNE_ORDER).map(ResourceRef::key))
        .containsExactly(
            "service/default/a",
            "secret/default/a",
            "secret/default/b",
            "configmap/default/a",
            "volume/default/a",
            "storage_class//s",
            "namespace//default");
  }

  @Test
  void contentHashIsSha256OfCanonicalJsonWithSortedKeys() {
    ConfigMapSpec a = ConfigMapSpec.of("default", "cfg", Map.of("z", "1", "a", "2"));

    assertThat(ContentHash.canonicalJson(a))
        .isEqualTo(
            "{\"kind\":\"configmap\",\"annotations\":{},\"data\":{\"a\":\"2\",\"z\":\"1\"},"
                + "\"labels\":{},\"name\":\"cfg\",\"namespace\":\"default\"}");
    assertThat(ContentHash.of(a))
        .isEqualTo(ContentHash.of(ConfigMapSpec.of("default", "cfg", Map.of("a", "2", "z", "1"))))
        .isNotEqualTo(ContentHash.of(a.with("z", "9")))
        .matches("sha256:[0-9a-f]{64}");
  }

  @Test
  void secretHashCoversValuesButToStringShowsOnlyKeys() {
    SecretSpec s = SecretSpec.of("default", "creds", Map.of("password", "p1"));

    assertThat(ContentHash.of(s)).isNotEqualTo(ContentHash.of(s.with("password", "p2")));
    assertThat(s.toString())
        .isEqualTo(
            "SecretSpec[default/creds, type=Opaque, keys=[password], labels={}, annotations={}]");
    assertThat(SecretValue.of("p1").toString()).isEqualTo("(secret, 2 bytes)");
  }

  @Test
  void specOfDerivesResourcesInApplyOrderAndImplicitReferences() {
    Payloads p =
        Payloads.builder()
            .service(ServiceSpec.builder("default", "web").image("w").build())
            .volume(VolumeSpec.of("data-ns", "data", "1Gi").withStorageClass("fast"))
            .build();

    ReleaseSpec spec = ReleaseSpec.of("default", "app", p);

    assertThat(spec.resources())
        .extracting(r -> r.ref().key())
        .containsExactly("volume/data-ns/data", "service/default/web");
    assertThat(spec.references())
        .containsExactly(
            ResourceRef.namespace("data-ns"),
            ResourceRef.namespace("default"),
            ResourceRef.storageClass("fast"));
    assertThat(spec.resources().get(1).contentHash()).isEqualTo(ContentHash.of(p.specs().get(1)));
  }

  @Test
  void orderingTiesBreakExactlyAsTheKeyStringsCompare() {
    java.util.Random random = new java.util.Random(7);
    String[] parts = {"a", "a-b", "ab", "a0", "a.b", "b", "z"};
    List<ResourceRef> refs = new java.util.ArrayList<>();
    for (int i = 0; i < 400; i++) {
      ResourceType type =
          List.of(
                  ResourceType.VOLUME,
                  ResourceType.CONFIGMAP,
                  ResourceType.SECRET,
                  ResourceType.SERVICE)
              .get(random.nextInt(4));
      String ns = parts[random.nextInt(4)];
      String name = parts[random.nextInt(parts.length)] + (random.nextBoolean() ? "" : "-x");
      refs.add(
          ResourceRef.of(
              type, ns, type == ResourceType.SERVICE ? "s" + name.replace(".", "") : name));
    }
    java.util.Comparator<ResourceRef> byString =
        java.util.Comparator.comparingInt((ResourceRef r) -> r.type().applyRank())
            .thenComparing(ResourceRef::key);

    assertThat(refs.stream().sorted(ResourceRef.APPLY_ORDER).toList())
        .isEqualTo(refs.stream().sorted(byString).toList());
  }
}
