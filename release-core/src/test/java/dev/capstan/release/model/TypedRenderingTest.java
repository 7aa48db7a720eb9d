package dev.capstan.release.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.internal.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the typed convenience specs render to: the mapping the Kubernetes adapter applies. */
class TypedRenderingTest {
  private static String json(Manifest m) {
    return new String(Json.canonical(m.content()), StandardCharsets.UTF_8);
  }

  @Test
  void aServiceWithPortsIsADeploymentSelectedByItsLabelAndAService() {
    ServiceSpec web =
        ServiceSpec.builder("shop", "web")
            .image("ghcr.io/acme/web:1.4.2")
            .replicas(2)
            .port("http", 8080)
            .env("MODE", "prod")
            .envFromSecret("creds")
            .envFromConfigMap("settings")
            .mount("data", "/var/data")
            .resources(new ServiceSpec.Resources("250m", "512Mi", null, "1Gi"))
            .readinessProbe(ServiceSpec.Probe.http("/ready", 8080))
            .label("tier", "front")
            .annotation("team", "shop")
            .build();

    assertThat(web.render())
        .extracting(m -> m.ref().key())
        .containsExactly("apps/Deployment/shop/web", "Service/shop/web");
    assertThat(json(web.render().get(0)))
        .isEqualTo(
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":"
                + "{\"team\":\"shop\"},\"labels\":{\"tier\":\"front\"},\"name\":\"web\","
                + "\"namespace\":\"shop\"},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":"
                + "{\"capstan.dev/service\":\"web\"}},\"template\":{\"metadata\":{\"labels\":"
                + "{\"capstan.dev/service\":\"web\",\"tier\":\"front\"}},\"spec\":{\"containers\":"
                + "[{\"env\":[{\"name\":\"MODE\",\"value\":\"prod\"}],\"envFrom\":[{\"secretRef\":"
                + "{\"name\":\"creds\"}},{\"configMapRef\":{\"name\":\"settings\"}}],\"image\":"
                + "\"ghcr.io/acme/web:1.4.2\",\"name\":\"web\",\"ports\":[{\"containerPort\":8080,"
                + "\"name\":\"http\",\"protocol\":\"TCP\"}],\"readinessProbe\":{\"httpGet\":"
                + "{\"path\":\"/ready\",\"port\":8080},\"initialDelaySeconds\":0,"
                + "\"periodSeconds\":10},\"resources\":{\"limits\":{\"memory\":\"1Gi\"},"
                + "\"requests\":{\"cpu\":\"250m\",\"memory\":\"512Mi\"}},\"volumeMounts\":"
                + "[{\"mountPath\":\"/var/data\",\"name\":\"data\"}]}],\"volumes\":[{\"name\":"
                + "\"data\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}}]}}}}");
    assertThat(json(web.render().get(1)))
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"annotations\":{\"team\":"
                + "\"shop\"},\"labels\":{\"tier\":\"front\"},\"name\":\"web\",\"namespace\":"
                + "\"shop\"},\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":8080,\"protocol\":"
                + "\"TCP\",\"targetPort\":8080}],\"selector\":{\"capstan.dev/service\":\"web\"}}}");
  }

  @Test
  void aServiceWithoutPortsIsOnlyADeployment() {
    ServiceSpec worker = ServiceSpec.builder("shop", "worker").image("w:1").build();

    assertThat(worker.render())
        .extracting(m -> m.ref().key())
        .containsExactly("apps/Deployment/shop/worker");
  }

  @Test
  void aClaimNameThatIsNoDnsLabelGetsADigestPodVolumeName() {
    ServiceSpec web =
        ServiceSpec.builder("shop", "web").image("w:1").mount("data.v2", "/d").build();

    assertThat(String.valueOf(web.render().get(0).get("spec.template.spec.volumes")))
        .isEqualTo(
            "[{name=vol-" + podVolumeDigest() + ", persistentVolumeClaim={claimName=data.v2}}]");
  }

  private static String podVolumeDigest() {
    return TypedRendering.podVolumeName("data.v2").substring(4);
  }

  @Test
  void secretsAreBase64AndConfigMapsPlain() {
    assertThat(json(SecretSpec.of("shop", "creds", Map.of("password", "s3cret")).render().get(0)))
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"data\":{\"password\":\"czNjcmV0\"},\"kind\":\"Secret\","
                + "\"metadata\":{\"name\":\"creds\",\"namespace\":\"shop\"},\"type\":\"Opaque\"}");
    assertThat(json(ConfigMapSpec.of("shop", "settings", Map.of("level", "1.10")).render().get(0)))
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"data\":{\"level\":\"1.10\"},\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"settings\",\"namespace\":\"shop\"}}");
  }

  @Test
  void volumesKeepTheirSpellingStorageClassAndReclaimPolicy() {
    VolumeSpec data =
        VolumeSpec.of("shop", "data", "1.5Gi")
            .withStorageClass("fast")
            .withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN);

    assertThat(json(data.render().get(0)))
        .isEqualTo(
            "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":"
                + "{\"annotations\":{\"capstan.dev/reclaim-policy\":\"Retain\"},\"name\":\"data\","
                + "\"namespace\":\"shop\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
                + "\"resources\":{\"requests\":{\"storage\":\"1.5Gi\"}},\"storageClassName\":"
                + "\"fast\"}}");
  }
}
