package dev.capstan.release.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelTest {
  @Test
  void keysAreTypeNamespaceName() {
    assertThat(ResourceRef.of(Kind.DEPLOYMENT, "default", "web").key())
        .isEqualTo("apps/Deployment/default/web");
    assertThat(ResourceRef.of(Kind.SECRET, "default", "creds").key())
        .isEqualTo("Secret/default/creds");
    assertThat(ResourceRef.storageClass("fast").key())
        .isEqualTo("storage.k8s.io/StorageClass//fast");
    assertThat(ResourceRef.parse("storage.k8s.io/StorageClass//fast"))
        .isEqualTo(ResourceRef.storageClass("fast"));
    assertThat(ResourceRef.parse("PersistentVolumeClaim/prod/data.v2"))
        .isEqualTo(ResourceRef.of(Kind.PERSISTENT_VOLUME_CLAIM, "prod", "data.v2"));
  }

  @Test
  void applyOrderIsNamespaceStorageClassVolumeConfigmapSecretServiceThenKey() {
    List<ResourceRef> refs =
        List.of(
            ResourceRef.parse("apps/Deployment/default/a"),
            ResourceRef.parse("Secret/default/b"),
            ResourceRef.parse("Secret/default/a"),
            ResourceRef.parse("ConfigMap/default/a"),
            ResourceRef.parse("PersistentVolumeClaim/default/a"),
            ResourceRef.storageClass("s"),
            ResourceRef.namespace("default"));

    assertThat(refs.stream().sorted(ResourceRef.APPLY_ORDER).map(ResourceRef::key))
        .containsExactly(
            "Namespace//default",
            "storage.k8s.io/StorageClass//s",
            "PersistentVolumeClaim/default/a",
            "ConfigMap/default/a",
            "Secret/default/a",
            "Secret/default/b",
            "apps/Deployment/default/a");
    assertThat(refs.stream().sorted(ResourceRef.PRUNE_ORDER).map(ResourceRef::key))
        .containsExactly(
            "apps/Deployment/default/a",
            "Secret/default/a",
            "Secret/default/b",
            "ConfigMap/default/a",
            "PersistentVolumeClaim/default/a",
            "storage.k8s.io/StorageClass//s",
            "Namespace//default");
  }

  @Test
  void contentHashIsSha256OfCanonicalJsonWithSortedKeys() {
    ConfigMapSpec a = ConfigMapSpec.of("default", "cfg", Map.of("z", "1", "a", "2"));

    assertThat(ContentHash.canonicalJson(a.render().get(0)))
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"data\":{\"a\":\"2\",\"z\":\"1\"},\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"cfg\",\"namespace\":\"default\"}}");
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
  void aServicesToStringShowsNoValueOfAnEnvVarNamedAsASecret() {
    ServiceSpec s =
        ServiceSpec.builder("shop", "web")
            .image("w:1")
            .env("DB_PASSWORD", "hunter2-S3CR3T")
            .env("LOG_LEVEL", "info")
            .build();

    assertThat(s.toString())
        .isEqualTo(
            "ServiceSpec[namespace=shop, name=web, image=w:1, replicas=1, command=[], args=[],"
                + " ports=[], env={DB_PASSWORD=(the value is not shown), LOG_LEVEL=info},"
                + " envFrom=[], volumeMounts=[], resources=null, readinessProbe=null, labels={},"
                + " annotations={}]");
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
        .containsExactly("PersistentVolumeClaim/data-ns/data", "apps/Deployment/default/web");
    // a claim's storage class is no reference: one bound statically names a class no object backs
    assertThat(spec.references())
        .containsExactly(ResourceRef.namespace("data-ns"), ResourceRef.namespace("default"));
    assertThat(spec.resources().get(1).contentHash()).isEqualTo(ContentHash.of(p.specs().get(0)));
  }

  @Test
  void orderingTiesBreakExactlyAsTheKeyStringsCompare() {
    java.util.Random random = new java.util.Random(7);
    String[] parts = {"a", "a-b", "ab", "a0", "a.b", "b", "z"};
    List<ResourceRef> refs = new java.util.ArrayList<>();
    for (int i = 0; i < 400; i++) {
      Kind type =
          List.of(Kind.PERSISTENT_VOLUME_CLAIM, Kind.CONFIG_MAP, Kind.SECRET, Kind.DEPLOYMENT)
              .get(random.nextInt(4));
      String ns = parts[random.nextInt(4)];
      String name = parts[random.nextInt(parts.length)] + (random.nextBoolean() ? "" : "-x");
      refs.add(
          ResourceRef.of(
              type, ns, type.equals(Kind.DEPLOYMENT) ? "s" + name.replace(".", "") : name));
    }
    java.util.Comparator<ResourceRef> byString =
        java.util.Comparator.comparingInt((ResourceRef r) -> r.kind().rank())
            .thenComparing(ResourceRef::key);

    assertThat(refs.stream().sorted(ResourceRef.APPLY_ORDER).toList())
        .isEqualTo(refs.stream().sorted(byString).toList());
  }

  @Test
  void withEntrySetsAKeyHoldingDotsInAMapCreatingItWhenAbsent() {
    Manifest bare =
        Manifest.of(
            Map.of(
                "apiVersion", "apps/v1", "kind", "Deployment", "metadata", Map.of("name", "web")),
            "shop");
    Manifest annotated =
        bare.withEntry("metadata.annotations", "capstan.dev/config-rollout", "false")
            .withEntry("metadata.annotations", "note", "kept");

    assertThat(annotated.annotations())
        .containsExactlyEntriesOf(
            new java.util.TreeMap<>(Map.of("capstan.dev/config-rollout", "false", "note", "kept")));
    assertThat(annotated.ref()).isEqualTo(bare.ref());
    assertThat(bare.annotations()).isEmpty(); // a copy: the original is unchanged
  }

  @Test
  void withDescriptionKeepsEveryOtherFieldTheSecretHashKeyIncluded() {
    java.time.Instant t = java.time.Instant.parse("2026-01-01T00:00:00Z");
    Release r =
        new Release(
                "default/web",
                "default",
                "web",
                2,
                ReleaseStatus.DEPLOYED,
                List.of(),
                List.of(),
                List.of(),
                "helm chart web-0.1.0",
                "1.0",
                "cast by the import",
                Payloads.of(List.of()),
                null,
                t,
                t,
                null)
            .withSecretHashKey(SecretHashKey.generate());

    Release described = r.withDescription("adopted from Helm release web revision 2");

    assertThat(described.description()).isEqualTo("adopted from Helm release web revision 2");
    assertThat(described.withDescription(r.description())).isEqualTo(r);
    assertThat(described.secretHashKey()).isSameAs(r.secretHashKey());
  }

  @Test
  void retainedUidsNameRetainedObjectsOnceAndFollowThemThroughWithRetained() {
    java.time.Instant t = java.time.Instant.parse("2026-01-01T00:00:00Z");
    ResourceRef data = ResourceRef.parse("PersistentVolumeClaim/default/data");
    ResourceRef logs = ResourceRef.parse("PersistentVolumeClaim/default/logs");
    Release r =
        new Release(
            "id-web",
            "default",
            "web",
            1,
            ReleaseStatus.UNINSTALLED,
            List.of(),
            List.of(),
            List.of(data, logs),
            null,
            null,
            null,
            Payloads.of(List.of()),
            null,
            t,
            t,
            null);

    Release known =
        r.withRetained(
            List.of(data, logs),
            List.of(new RetainedUid(logs, "uid-2"), new RetainedUid(data, "uid-1")));

    assertThat(r.retainedUids()).isEmpty();
    assertThat(known.retainedUids())
        .containsExactly(new RetainedUid(data, "uid-1"), new RetainedUid(logs, "uid-2"));
    assertThat(known.retainedUid(logs)).contains("uid-2");
    assertThat(known.withRetained(List.of(logs)).retainedUids())
        .containsExactly(new RetainedUid(logs, "uid-2"));
    assertThat(known.withStatus(ReleaseStatus.DEPLOYED, t).retainedUids())
        .isEqualTo(known.retainedUids());
    assertThatThrownBy(() -> r.withRetained(List.of(logs), List.of(new RetainedUid(data, "uid-1"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "retainedUids must name retained objects: PersistentVolumeClaim/default/data is not"
                + " retained");
    assertThatThrownBy(
            () ->
                r.withRetained(
                    List.of(data),
                    List.of(new RetainedUid(data, "uid-1"), new RetainedUid(data, "uid-3"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "retainedUids must name each object once: PersistentVolumeClaim/default/data is named"
                + " twice");
  }
}
