package dev.capstan.release.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.model.WithheldSecret;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class ReleaseRecordCodecTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private static final String HASH = "sha256:" + "ab".repeat(32);

  static Release sample() {
    ServiceSpec web =
        ServiceSpec.builder("default", "web")
            .image("ghcr.io/acme/web:1.2.3")
            .replicas(3)
            .command("/bin/web")
            .args("--port", "8080")
            .port("http", 8080)
            .env("MODE", "prod")
            .envFromSecret("creds")
            .envFromConfigMap("settings")
            .mount("data", "/var/lib/web")
            .resources(new ServiceSpec.Resources("250m", "256Mi", null, "1Gi"))
            .readinessProbe(ServiceSpec.Probe.http("/healthz", 8080))
            .label("app.kubernetes.io/name", "web")
            .annotation("note", "hello world")
            .build();
    SecretSpec creds =
        new SecretSpec(
            "default",
            "creds",
            "Opaque",
            new java.util.TreeMap<>(
                Map.of(
                    "bin",
                    SecretValue.ofBytes(new byte[] {0, (byte) 255, 7}),
                    "pw",
                    SecretValue.of("p"))),
            new java.util.TreeMap<>(),
            new java.util.TreeMap<>());
    ConfigMapSpec settings = ConfigMapSpec.of("default", "settings", Map.of("a", "1"));
    VolumeSpec data =
        VolumeSpec.of("default", "data", "10Gi")
            .withStorageClass("fast")
            .withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN);
    Payloads payloads = Payloads.of(web, creds, settings, data);
    return new Release(
        "id-1",
        "default",
        "app",
        4,
        ReleaseStatus.PENDING,
        payloads.refs().stream()
            .map(r -> new OwnedResource(r, ContentHash.of(payloads.get(r).orElseThrow())))
            .toList(),
        List.of(ResourceRef.namespace("default"), ResourceRef.storageClass("fast")),
        List.of(ResourceRef.parse("PersistentVolumeClaim/default/old")),
        "git@example.com:acme/web.git",
        "1.2.3",
        "rollback to 2",
        payloads,
        "failure text",
        T,
        T.plusSeconds(5),
        new Lease("me", T, T.plusSeconds(120)));
  }

  @Test
  void roundTripsEveryField() {
    Release release = sample();

    Release back = ReleaseRecordCodec.decode(ReleaseRecordCodec.encode(release));

    assertThat(back).isEqualTo(release);
    assertThat(back.payloads().hashes()).isEqualTo(release.payloads().hashes());
  }

  @Test
  void encodingIsGzipJsonWithASchemaVersionAndIsStable() throws Exception {
    byte[] a = ReleaseRecordCodec.encode(sample());
    byte[] b = ReleaseRecordCodec.encode(sample());

    assertThat(a).isEqualTo(b);
    String json =
        new String(
            new GZIPInputStream(new java.io.ByteArrayInputStream(a)).readAllBytes(),
            StandardCharsets.UTF_8);
    assertThat(json).startsWith("{\"schemaVersion\":3,\"release\":{\"createdAt\":");
    assertThat(json)
        .contains("\"kind\":\"service\"")
        .contains(
            "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"name\":\"fast\","
                + "\"namespace\":\"\"}");
  }

  @Test
  void aRecordNamingItsAttemptIsSchema4AndOneWithoutIsTheSchema3BytesEarlierBuildsRead()
      throws Exception {
    Release named = sample().withAttempt("0123456789abcdef");

    String json =
        new String(
            new GZIPInputStream(new java.io.ByteArrayInputStream(ReleaseRecordCodec.encode(named)))
                .readAllBytes(),
            StandardCharsets.UTF_8);

    assertThat(json)
        .startsWith("{\"schemaVersion\":4,\"release\":{\"attempt\":\"0123456789abcdef\",");
    assertThat(ReleaseRecordCodec.decode(ReleaseRecordCodec.encode(named))).isEqualTo(named);
    assertThat(ReleaseRecordCodec.encode(named.withAttempt(null)))
        .isEqualTo(ReleaseRecordCodec.encode(sample()));
  }

  @Test
  void aRecordWithHookOutcomesIsSchema5AndOneWithoutIsTheBytesEarlierBuildsRead() throws Exception {
    java.time.Instant at = java.time.Instant.parse("2026-12-05T10:00:00Z");
    dev.capstan.release.model.HookOutcome failed =
        new dev.capstan.release.model.HookOutcome(
            dev.capstan.release.model.HookPhase.PRE_UPGRADE,
            ResourceRef.parse("batch/Job/shop/migrate"),
            dev.capstan.release.model.HookOutcome.Status.FAILED,
            "pod migrate-x: container main: Error (exit code 1)",
            at,
            at.plusSeconds(3));
    Release withHooks = sample().withAttempt("0123456789abcdef").withHooks(List.of(failed));

    String json =
        new String(
            new GZIPInputStream(
                    new java.io.ByteArrayInputStream(ReleaseRecordCodec.encode(withHooks)))
                .readAllBytes(),
            StandardCharsets.UTF_8);

    assertThat(json)
        .startsWith("{\"schemaVersion\":5,")
        .contains(
            "\"hooks\":[{\"finishedAt\":\"2026-12-05T10:00:03Z\",\"message\":\"pod migrate-x:"
                + " container main: Error (exit code 1)\",\"phase\":\"PRE_UPGRADE\",");
    assertThat(ReleaseRecordCodec.decode(ReleaseRecordCodec.encode(withHooks)))
        .isEqualTo(withHooks);
    assertThat(ReleaseRecordCodec.encode(withHooks.withHooks(List.of())))
        .isEqualTo(ReleaseRecordCodec.encode(sample().withAttempt("0123456789abcdef")));
  }

  @Test
  void aRecordWithRetainedUidsIsSchema6AndOneWithoutIsTheBytesEarlierBuildsRead() throws Exception {
    ResourceRef old = ResourceRef.parse("PersistentVolumeClaim/default/old");
    Release withUids = sample().withRetained(List.of(old), List.of(new RetainedUid(old, "uid-42")));

    byte[] encoded = ReleaseRecordCodec.encode(withUids);
    String json =
        new String(
            new GZIPInputStream(new java.io.ByteArrayInputStream(encoded)).readAllBytes(),
            StandardCharsets.UTF_8);

    assertThat(json)
        .startsWith("{\"schemaVersion\":6,")
        .contains(
            "\"retainedUids\":[{\"ref\":{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\","
                + "\"name\":\"old\",\"namespace\":\"default\"},\"uid\":\"uid-42\"}]");
    Release back = ReleaseRecordCodec.decode(encoded);
    assertThat(back).isEqualTo(withUids);
    assertThat(back.retainedUid(old)).contains("uid-42");
    assertThat(ReleaseRecordCodec.encode(withUids.withRetained(List.of(old), List.of())))
        .isEqualTo(ReleaseRecordCodec.encode(sample()));
  }

  @Test
  void aRecordOfAnEarlierSchemaHasItsRetainedObjectsWithoutUids() {
    Release earlier = ReleaseRecordCodec.decode(ReleaseRecordCodec.encode(sample()));

    assertThat(earlier.retained())
        .containsExactly(ResourceRef.parse("PersistentVolumeClaim/default/old"));
    assertThat(earlier.retainedUids()).isEmpty();
    assertThat(earlier.retainedUid(ResourceRef.parse("PersistentVolumeClaim/default/old")))
        .isEmpty();
  }

  @Test
  void manifestsRoundTripExactlyWithDecimalsAsWrittenAndNullFieldsLeftOut() {
    Map<String, Object> widget = new java.util.LinkedHashMap<>();
    widget.put("apiVersion", "example.com/v1");
    widget.put("kind", "Widget");
    widget.put("metadata", Map.of("name", "w1", "namespace", "default"));
    Map<String, Object> spec = new java.util.LinkedHashMap<>();
    spec.put("ratio", new java.math.BigDecimal("1.10"));
    spec.put("count", 3);
    spec.put("nothing", null);
    widget.put("spec", spec);
    Release release = sample().withOwns(List.of());
    Release withManifest =
        new Release(
            release.id(),
            release.namespace(),
            release.name(),
            release.revision(),
            release.status(),
            List.of(),
            release.references(),
            release.retained(),
            release.source(),
            release.version(),
            release.description(),
            release.payloads().with(Manifest.of(widget)),
            release.failure(),
            release.createdAt(),
            release.updatedAt(),
            release.lease());

    Release back = ReleaseRecordCodec.decode(ReleaseRecordCodec.encode(withManifest));

    Manifest decoded =
        back.payloads().get(ResourceRef.parse("example.com/Widget/default/w1")).orElseThrow();
    assertThat(String.valueOf(decoded.get("spec.ratio"))).isEqualTo("1.10");
    assertThat(decoded.content()).isEqualTo(Manifest.of(widget).content());
    assertThat(decoded.get("spec"))
        .isEqualTo(Map.of("count", 3, "ratio", new java.math.BigDecimal("1.10")));
    assertThat(back.payloads().hashes()).isEqualTo(withManifest.payloads().hashes());
  }

  @Test
  void aSchemaOneRecordOfTheFirstReleaseIsStillRead() throws Exception {
    byte[] v1;
    try (var in = getClass().getResourceAsStream("/records/release-v1.json.gz")) {
      v1 = java.util.Objects.requireNonNull(in, "fixture").readAllBytes();
    }

    Release r = ReleaseRecordCodec.decode(v1);

    assertThat(r.revision()).isEqualTo(2);
    assertThat(r.status()).isEqualTo(dev.capstan.release.model.ReleaseStatus.DEPLOYED);
    assertThat(r.owns())
        .extracting(o -> o.ref().key())
        .containsExactly(
            "PersistentVolumeClaim/shop/data",
            "ConfigMap/shop/settings",
            "Secret/shop/creds",
            "apps/Deployment/shop/web",
            "Service/shop/web");
    assertThat(r.owns().get(3).contentHash())
        .isEqualTo("sha256:30408f64150a734ef85efe504712bc0bbb167dd5147b122dcfe28bee55bbefff");
    assertThat(r.references())
        .extracting(ResourceRef::key)
        .containsExactly("Namespace//shop", "storage.k8s.io/StorageClass//standard");
    assertThat(r.retained())
        .extracting(ResourceRef::key)
        .containsExactly("PersistentVolumeClaim/shop/old-data");
    assertThat(r.payloads().refs())
        .extracting(ResourceRef::key)
        .containsExactly(
            "PersistentVolumeClaim/shop/data",
            "ConfigMap/shop/settings",
            "Secret/shop/creds",
            "apps/Deployment/shop/web",
            "Service/shop/web");
    assertThat(
            r.payloads()
                .get(ResourceRef.parse("ConfigMap/shop/settings"))
                .orElseThrow()
                .get("data.level"))
        .isEqualTo("1.10");
    assertThat(r.retainsVolume(ResourceRef.parse("PersistentVolumeClaim/shop/data"), null))
        .isTrue();
  }

  @Test
  void rejectsAnotherSchemaVersion() throws Exception {
    byte[] other = gzip("{\"schemaVersion\":7,\"release\":{}}");

    assertThatThrownBy(() -> ReleaseRecordCodec.decode(other))
        .isInstanceOf(RecordFormatException.class)
        .hasMessage(
            "release record schemaVersion must be from 1 to 6: 7 (written by a different Capstan"
                + " version)");
  }

  static ChartOrigin chart() {
    return new ChartOrigin(
        "oci://127.0.0.1:5000/charts/shop",
        "shop",
        "1.2.0",
        "2.1",
        "sha256:" + "0f".repeat(32),
        Map.of(
            "replicas",
            3,
            "auth",
            Map.of("user", "app", "password", ChartOrigin.MASKED),
            "ratio",
            new java.math.BigDecimal("1.50"),
            "tags",
            List.of("a", "b")),
        List.of("auth.password"),
        "helm v3.22.0");
  }

  @Test
  void aRevisionRenderedFromAChartIsSchema4AndKeepsItsChartExactly() throws Exception {
    Release release =
        new Release(
            "id-1",
            "default",
            "app",
            4,
            ReleaseStatus.DEPLOYED,
            sample().owns(),
            sample().references(),
            List.of(),
            "chart oci://127.0.0.1:5000/charts/shop",
            "2.1",
            null,
            sample().payloads(),
            null,
            T,
            T,
            null,
            null,
            List.of(),
            chart(),
            null);

    byte[] bytes = ReleaseRecordCodec.encode(release);
    Release back = ReleaseRecordCodec.decode(bytes);

    assertThat(back).isEqualTo(release);
    assertThat(back.chart()).isEqualTo(chart());
    assertThat(java.util.Objects.requireNonNull(back.chart()).values().get("replicas"))
        .isEqualTo(3L);
    assertThat(java.util.Objects.requireNonNull(back.chart()).values().get("ratio"))
        .isEqualTo(new java.math.BigDecimal("1.50"));
    String json =
        new String(
            new GZIPInputStream(new java.io.ByteArrayInputStream(bytes)).readAllBytes(),
            StandardCharsets.UTF_8);
    assertThat(json)
        .startsWith("{\"schemaVersion\":4,")
        .contains(
            "\"chart\":{\"appVersion\":\"2.1\",\"digest\":\"sha256:"
                + "0f".repeat(32)
                + "\",\"maskedValues\":[\"auth.password\"],\"name\":\"shop\"");
    assertThat(String.valueOf(release.chart()))
        .isEqualTo(
            "ChartOrigin[oci://127.0.0.1:5000/charts/shop shop 1.2.0 sha256:"
                + "0f".repeat(32)
                + ", 1 masked value(s)]");
  }

  @Test
  void aRevisionWithoutAChartIsWrittenAsSchema3AsEarlierBuildsWroteIt() throws Exception {
    String json =
        new String(
            new GZIPInputStream(
                    new java.io.ByteArrayInputStream(ReleaseRecordCodec.encode(sample())))
                .readAllBytes(),
            StandardCharsets.UTF_8);

    assertThat(json).startsWith("{\"schemaVersion\":3,").doesNotContain("\"chart\"");
    assertThat(ReleaseRecordCodec.decode(gzip(json)).chart()).isNull();
  }

  @Test
  void aChartWithABadDigestIsRefusedNamingTheField() {
    assertThatThrownBy(
            () ->
                new ChartOrigin(
                    "./shop", "shop", "1.0.0", null, "md5:abc", Map.of(), List.of(), "helm v4.3.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chart.digest must be sha256: and 64 lower-case hex digits: 'md5:abc'");
  }

  @Test
  void theSecretHashKeyAndWithheldSecretsRoundTripAndTheKeyNeverPrints() throws Exception {
    SecretHashKey key = SecretHashKey.generate();
    ResourceRef creds = ResourceRef.parse("Secret/default/creds");
    Release release =
        sample()
            .withSecretHashKey(key)
            .withWithheldSecrets(
                sample().payloads().without(creds),
                List.of(new WithheldSecret(creds, List.of("pw", "bin"), key.keyed(HASH))));

    byte[] bytes = ReleaseRecordCodec.encode(release);
    Release back = ReleaseRecordCodec.decode(bytes);

    assertThat(back).isEqualTo(release);
    assertThat(back.secretHashKey()).isEqualTo(key);
    assertThat(back.withheldSecrets())
        .containsExactly(new WithheldSecret(creds, List.of("bin", "pw"), key.keyed(HASH)));
    assertThat(back.payloads().get(creds)).isEmpty();
    String json =
        new String(
            new GZIPInputStream(new java.io.ByteArrayInputStream(bytes)).readAllBytes(),
            StandardCharsets.UTF_8);
    assertThat(json)
        .contains("\"secretHashKey\":\"" + key.toBase64() + "\"")
        .contains("\"withheldSecrets\":[{\"contentHash\":\"hmac-sha256:");
    assertThat(key.toString()).isEqualTo("SecretHashKey(hidden)");
    assertThat(release.toString())
        .isEqualTo("Release[default/app revision 4 pending: failure text]")
        .doesNotContain(key.toBase64());
  }

  @Test
  void aSchema2RecordDecodesWithoutAKeyAndWithEveryValueRecorded() throws Exception {
    String json =
        new String(
                new GZIPInputStream(
                        new java.io.ByteArrayInputStream(ReleaseRecordCodec.encode(sample())))
                    .readAllBytes(),
                StandardCharsets.UTF_8)
            .replace("\"schemaVersion\":3", "\"schemaVersion\":2")
            .replace(",\"withheldSecrets\":[]", "");
    assertThat(json).doesNotContain("secretHashKey").doesNotContain("withheldSecrets");

    Release back = ReleaseRecordCodec.decode(gzip(json));

    assertThat(back).isEqualTo(sample());
    assertThat(back.secretHashKey()).isNull();
    assertThat(back.withheldSecrets()).isEmpty();
  }

  @Test
  void aMalformedKeyIsRefusedWithoutEchoingIt() throws Exception {
    String json =
        new String(
                new GZIPInputStream(
                        new java.io.ByteArrayInputStream(ReleaseRecordCodec.encode(sample())))
                    .readAllBytes(),
                StandardCharsets.UTF_8)
            .replace("\"withheldSecrets\":[]", "\"secretHashKey\":\"c2hvcnQta2V5LXZhbHVl\"");

    assertThatThrownBy(() -> ReleaseRecordCodec.decode(gzip(json)))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageStartingWith("release record is malformed")
        .hasMessageContaining("secret hash key must be 32 bytes: 15 bytes given")
        .message()
        .doesNotContain("c2hvcnQta2V5LXZhbHVl");
  }

  @Test
  void rejectsGarbageAndMalformedRecords() throws Exception {
    assertThatThrownBy(() -> ReleaseRecordCodec.decode("plain".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageStartingWith("release record is not gzip data");
    assertThatThrownBy(
            () ->
                ReleaseRecordCodec.decode(
                    gzip("{\"schemaVersion\":1,\"release\":{\"revision\":0}}")))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageStartingWith("release record is malformed");
  }

  @Test
  void refusesToInflateBeyondTheLimit() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      byte[] zeros = new byte[1 << 20];
      for (int i = 0; i <= ReleaseRecordCodec.MAX_DECODED_BYTES >> 20; i++) {
        gz.write(zeros);
      }
    }

    assertThatThrownBy(() -> ReleaseRecordCodec.decode(bytes.toByteArray()))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageContaining("decodes to more than 134217728 bytes");
  }

  @Test
  void aReaderGivenLimitsInflatesAndBuildsNoFurtherThanThem() throws Exception {
    // a record's shape made to cost: 1 KB of gzip that inflates to 400,000 bytes of empty objects
    String bomb = "{\"schemaVersion\":6,\"release\":{\"x\":[" + "{},".repeat(133_333) + "{}]}}";
    byte[] encoded = gzip(bomb);

    assertThatThrownBy(() -> ReleaseRecordCodec.decode(encoded, new RecordLimits(100_000, 1 << 20)))
        .isInstanceOf(RecordFormatException.class)
        .hasMessage("release record decodes to more than 100000 bytes");
    assertThatThrownBy(() -> ReleaseRecordCodec.decode(encoded, new RecordLimits(1 << 20, 100_000)))
        .isInstanceOf(RecordFormatException.class)
        .hasMessage(
            "release record holds more than 100000 nodes (mappings, lists, keys and values), more"
                + " than this reader may hold of a record");
  }

  @Test
  void aRecordWithinTheLimitsDecodesAsWithout() {
    byte[] encoded = ReleaseRecordCodec.encode(sample());
    int bytes = gunzipped(encoded).length;

    assertThat(ReleaseRecordCodec.decode(encoded, new RecordLimits(bytes, 1_000)))
        .isEqualTo(sample());
    assertThatThrownBy(() -> ReleaseRecordCodec.decode(encoded, new RecordLimits(bytes - 1, 1_000)))
        .hasMessage("release record decodes to more than " + (bytes - 1) + " bytes");
    assertThatThrownBy(() -> ReleaseRecordCodec.decode(encoded, new RecordLimits(bytes, 10)))
        .hasMessageStartingWith("release record holds more than 10 nodes");
  }

  private static byte[] gunzipped(byte[] encoded) {
    try (java.io.InputStream in =
        new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(encoded))) {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static byte[] gzip(String s) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      gz.write(s.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }
}
