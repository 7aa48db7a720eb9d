package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.LiveObject;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The read-back of each mapping: render a spec as Capstan sends it, make it look like what the API
 * server returns (canonical quantities, defaults, fields of other managers, managedFields), read it
 * back. Untouched, the hash is the spec's; edited, it is not.
 */
class ObjectMappingTest {
  private static final ReleaseIdentity OWNER = new ReleaseIdentity("shop", "app", "id-1");

  private static final ServiceSpec WEB =
      ServiceSpec.builder("shop", "web")
          .image("registry.example/web:1.0")
          .replicas(3)
          .command("/bin/web")
          .args("--port", "8080")
          .port("http", 8080)
          .port(new ServiceSpec.Port("dns", 53, ServiceSpec.Protocol.UDP))
          .env("MODE", "prod")
          .env("EMPTY", "")
          .envFromSecret("creds")
          .envFromConfigMap("settings")
          .mount("data", "/var/data")
          .mount(new ServiceSpec.VolumeMount("cache.v2", "/cache", true))
          .resources(new ServiceSpec.Resources("0.5", "1.5Gi", "1000m", null))
          .readinessProbe(new ServiceSpec.Probe("/healthz", 8080, 0, 5))
          .label("tier", "front")
          .annotation("team", "shop")
          .build();

  private static OwnershipStamp stamp(ServiceSpec spec) {
    return OwnershipStamp.of(OWNER, 2, ContentHash.of(spec));
  }

  /** The JSON Capstan sends, as the server stores it (quantities become canonical on the way). */
  private static JsonObject sent(Object body) {
    return ResourceApi.withoutEmpty(JSON.getGson().toJsonTree(body)).getAsJsonObject();
  }

  /** Adds a managedFields entry for {@code manager} with the given fieldsV1. */
  private static void managed(JsonObject raw, String manager, String fieldsV1) {
    JsonObject meta = raw.getAsJsonObject("metadata");
    JsonArray entries =
        meta.has("managedFields") ? meta.getAsJsonArray("managedFields") : new JsonArray();
    JsonObject entry = new JsonObject();
    entry.addProperty("manager", manager);
    entry.addProperty("operation", "Apply");
    entry.addProperty("fieldsType", "FieldsV1");
    entry.add("fieldsV1", JsonParser.parseString(fieldsV1));
    entries.add(entry);
    meta.add("managedFields", entries);
  }

  /** The Deployment as the server returns it: defaults, controller annotations, other managers. */
  private static JsonObject deploymentAsServed(ServiceSpec spec) {
    JsonObject d = sent(ServiceObjects.deployment(spec, stamp(spec)));
    managed(
        d,
        "capstan",
        """
        {"f:metadata":{"f:annotations":{"f:team":{},"f:capstan.dev/release":{},"f:capstan.dev/resources":{}},
          "f:labels":{"f:tier":{},"f:app.kubernetes.io/managed-by":{}}},
         "f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"web\\"}":{
           "f:env":{"k:{\\"name\\":\\"MODE\\"}":{},"k:{\\"name\\":\\"EMPTY\\"}":{}}}}}}}}
        """);
    JsonObject meta = d.getAsJsonObject("metadata");
    meta.getAsJsonObject("annotations").addProperty("deployment.kubernetes.io/revision", "4");
    meta.getAsJsonObject("labels").addProperty("mesh", "on");
    JsonObject container =
        d.getAsJsonObject("spec")
            .getAsJsonObject("template")
            .getAsJsonObject("spec")
            .getAsJsonArray("containers")
            .get(0)
            .getAsJsonObject();
    container.addProperty("imagePullPolicy", "IfNotPresent");
    container.addProperty("terminationMessagePath", "/dev/termination-log");
    container
        .getAsJsonArray("env")
        .add(JsonParser.parseString("{\"name\":\"INJECTED\",\"value\":\"1\"}"));
    container.getAsJsonObject("readinessProbe").addProperty("timeoutSeconds", 1);
    container
        .getAsJsonObject("readinessProbe")
        .getAsJsonObject("httpGet")
        .addProperty("scheme", "HTTP");
    d.getAsJsonObject("spec").addProperty("progressDeadlineSeconds", 600);
    d.getAsJsonObject("spec")
        .add("strategy", JsonParser.parseString("{\"type\":\"RollingUpdate\"}"));
    return d;
  }

  private static JsonObject serviceAsServed(ServiceSpec spec) {
    JsonObject s = sent(ServiceObjects.service(spec, stamp(spec)));
    s.getAsJsonObject("spec").addProperty("clusterIP", "10.0.0.17");
    s.getAsJsonObject("spec").addProperty("type", "ClusterIP");
    return s;
  }

  @Test
  void anUntouchedServiceReadsBackAsItsSpec() {
    LiveObject live = service(deploymentAsServed(WEB), serviceAsServed(WEB));

    assertThat(live.spec()).isEqualTo(WEB);
    assertThat(live.observedHash()).isEqualTo(ContentHash.of(WEB));
    assertThat(live.stamp()).isEqualTo(stamp(WEB));
    // Quantities are respelled on the way (0.5 as 500m, 1000m as 1, 1.5Gi in bytes).
    assertThat(
            deploymentAsServed(WEB)
                .getAsJsonObject("spec")
                .getAsJsonObject("template")
                .getAsJsonObject("spec")
                .getAsJsonArray("containers")
                .get(0)
                .getAsJsonObject()
                .getAsJsonObject("resources")
                .toString())
        .contains("\"500m\"", "\"1610612736\"", "\"1\"")
        .doesNotContain("0.5", "1000m", "1.5Gi");
  }

  @Test
  void editsOfMappedFieldsAreDrift() {
    JsonObject image = deploymentAsServed(WEB);
    image
        .getAsJsonObject("spec")
        .getAsJsonObject("template")
        .getAsJsonObject("spec")
        .getAsJsonArray("containers")
        .get(0)
        .getAsJsonObject()
        .addProperty("image", "evil:1");
    JsonObject cpu = deploymentAsServed(WEB);
    cpu.getAsJsonObject("spec")
        .getAsJsonObject("template")
        .getAsJsonObject("spec")
        .getAsJsonArray("containers")
        .get(0)
        .getAsJsonObject()
        .getAsJsonObject("resources")
        .getAsJsonObject("requests")
        .addProperty("cpu", "250m");

    assertThat(service(image, serviceAsServed(WEB)).observedHash())
        .isNotEqualTo(ContentHash.of(WEB));
    assertThat(
            ((ServiceSpec) requireNonNull(service(cpu, serviceAsServed(WEB)).spec())).resources())
        .isEqualTo(new ServiceSpec.Resources("250m", "1.5Gi", "1000m", null));
    // Without its Service, the service serves no port.
    assertThat(
            ((ServiceSpec) requireNonNull(service(deploymentAsServed(WEB), null).spec())).ports())
        .isEmpty();
  }

  @Test
  void aServiceOfAnotherOwnerDecidesTheStamp() {
    JsonObject foreign = serviceAsServed(WEB);
    foreign
        .getAsJsonObject("metadata")
        .getAsJsonObject("annotations")
        .addProperty("capstan.dev/release", "shop/other");
    JsonObject unstamped = serviceAsServed(WEB);
    unstamped.getAsJsonObject("metadata").remove("annotations");

    assertThat(requireNonNull(service(deploymentAsServed(WEB), foreign).stamp()).owner())
        .isEqualTo(new ReleaseIdentity("shop", "other", "id-1"));
    assertThat(service(deploymentAsServed(WEB), unstamped).stamp()).isNull();
    assertThat(service(null, serviceAsServed(WEB)).spec()).isNull();
  }

  private static LiveObject service(@Nullable JsonObject deployment, @Nullable JsonObject service) {
    return ServiceObjects.live(
        ResourceRef.of(ResourceType.SERVICE, "shop", "web"),
        deployment,
        deployment == null ? null : JSON.getGson().fromJson(deployment, V1Deployment.class),
        service,
        service == null ? null : JSON.getGson().fromJson(service, V1Service.class));
  }

  @Test
  void contentCapstanCannotWriteHashesAsTheRawObject() {
    JsonObject named = deploymentAsServed(WEB);
    named
        .getAsJsonObject("spec")
        .getAsJsonObject("template")
        .getAsJsonObject("spec")
        .getAsJsonArray("containers")
        .get(0)
        .getAsJsonObject()
        .getAsJsonObject("readinessProbe")
        .getAsJsonObject("httpGet")
        .addProperty("port", "http");

    LiveObject live = service(named, serviceAsServed(WEB));

    assertThat(live.spec()).isNull();
    assertThat(live.observedHash())
        .isEqualTo(Live.rawHash(named))
        .isNotEqualTo(ContentHash.of(WEB));
    assertThat(live.stamp()).isEqualTo(stamp(WEB));
  }

  @Test
  void configMapsAndSecretsReadBackTheKeysCapstanApplied() {
    ConfigMapSpec settings =
        new ConfigMapSpec(
            "shop",
            "settings",
            new TreeMap<>(Map.of("a", "1", "b", "2")),
            new TreeMap<>(Map.of("x", "y")),
            new TreeMap<>());
    JsonObject raw =
        sent(
            StoreObjects.configMap(
                settings, OwnershipStamp.of(OWNER, 1, ContentHash.of(settings))));
    raw.getAsJsonObject("data").addProperty("added-by-someone", "z");
    managed(
        raw,
        "capstan",
        "{\"f:data\":{\"f:a\":{},\"f:b\":{}},\"f:metadata\":{\"f:labels\":{\"f:x\":{}}}}");
    managed(raw, "someone", "{\"f:data\":{\"f:added-by-someone\":{}}}");

    LiveObject live = StoreObjects.configMap(raw, JSON.getGson().fromJson(raw, V1ConfigMap.class));

    assertThat(live.spec()).isEqualTo(settings);
    assertThat(live.observedHash()).isEqualTo(ContentHash.of(settings));

    SecretSpec creds =
        SecretSpec.of("shop", "creds", Map.of("password", "s3cret")).with("token", "t");
    JsonObject secret = sent(StoreObjects.secret(creds, null));
    LiveObject liveSecret =
        StoreObjects.secret(secret, JSON.getGson().fromJson(secret, V1Secret.class));
    assertThat(liveSecret.spec()).isEqualTo(creds); // unowned: every key counts (a pre-image)
    assertThat(liveSecret.stamp()).isNull();
    assertThat(secret.toString()).doesNotContain("s3cret"); // base64 on the wire
  }

  @Test
  void volumesKeepTheirSpellingDefaultClassAndReclaimPolicy() {
    VolumeSpec data =
        new VolumeSpec(
            "shop",
            "data",
            "1.5Gi",
            null,
            List.of(VolumeSpec.AccessMode.READ_WRITE_ONCE, VolumeSpec.AccessMode.READ_ONLY_MANY),
            VolumeSpec.ReclaimPolicy.RETAIN,
            new TreeMap<>(),
            new TreeMap<>(Map.of("note", "keep")));
    JsonObject raw =
        sent(StoreObjects.volume(data, OwnershipStamp.of(OWNER, 1, ContentHash.of(data))));
    raw.getAsJsonObject("spec").addProperty("storageClassName", "standard"); // the default class
    raw.getAsJsonObject("spec").addProperty("volumeMode", "Filesystem");

    LiveObject live =
        StoreObjects.volume(raw, JSON.getGson().fromJson(raw, V1PersistentVolumeClaim.class));

    assertThat(live.spec()).isEqualTo(data);
    assertThat(raw.toString()).contains("\"storage\":\"1610612736\"");
    VolumeSpec fast = VolumeSpec.of("shop", "fast", "10Gi").withStorageClass("ssd");
    JsonObject fastRaw = sent(StoreObjects.volume(fast, null));
    assertThat(
            StoreObjects.volume(
                    fastRaw, JSON.getGson().fromJson(fastRaw, V1PersistentVolumeClaim.class))
                .spec())
        .isEqualTo(fast);
  }
}
