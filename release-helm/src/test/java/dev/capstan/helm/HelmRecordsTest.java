package dev.capstan.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HelmRecordsTest {
  private static final String SECRET_VALUE = "hunter2-never-shown";

  /** A release JSON as Helm 3 writes it, trimmed to the fields read plus some it skips. */
  private static String json(int version, String status) {
    return """
        {"name":"shop","namespace":"apps","version":%d,
         "info":{"first_deployed":"2026-11-30T09:00:00.123456789Z",
                 "last_deployed":"2026-11-30T09:05:00+01:00","deleted":"",
                 "description":"Upgrade complete","status":"%s","notes":"thanks"},
         "chart":{"metadata":{"name":"shop","version":"0.2.0","appVersion":"1.1","apiVersion":"v2"},
                  "templates":[{"name":"templates/secret.yaml","data":"c2VjcmV0"}],
                  "values":{"password":"%s"}},
         "config":{"password":"%s"},
         "manifest":"---\\n# Source: shop/templates/secret.yaml\\napiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: creds\\nstringData:\\n  password: %s\\n",
         "hooks":[{"name":"shop-migrate","kind":"Job","path":"shop/templates/migrate.yaml",
                   "manifest":"apiVersion: batch/v1\\nkind: Job\\nmetadata:\\n  name: shop-migrate\\n",
                   "events":["post-install","post-upgrade"],"last_run":{"phase":"Succeeded"},
                   "weight":0,"delete_policies":["before-hook-creation"]}],
         "apply_method":"csa"}
        """
        .formatted(version, status, SECRET_VALUE, SECRET_VALUE, SECRET_VALUE);
  }

  private static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static String encode(String json) {
    return Base64.getEncoder().encodeToString(gzip(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static HelmRecord secret(String name, String data) {
    return new HelmRecord(
        HelmRecord.Driver.SECRET,
        "apps",
        name,
        HelmRecords.SECRET_TYPE,
        Map.of("owner", "helm", "name", "shop"),
        data);
  }

  private static HelmRecord secret(int version, String status) {
    return secret("sh.helm.release.v1.shop.v" + version, encode(json(version, status)));
  }

  private static HelmRecordException refused(HelmRecord record) {
    return refused(record, HelmLimits.defaults());
  }

  private static HelmRecordException refused(HelmRecord record, HelmLimits limits) {
    HelmRecordException e =
        catchThrowableOfType(HelmRecordException.class, () -> HelmRecords.decode(record, limits));
    assertThat(e).as("refused").isNotNull();
    assertThat(e.getMessage()).doesNotContain(SECRET_VALUE);
    return e;
  }

  @Test
  void aHelmSecretRecordDecodesToWhatHelmHistoryShowsTheManifestAndTheHooks() {
    HelmRevision r = HelmRecords.decode(secret(2, "superseded"), HelmLimits.defaults());

    assertThat(r.release()).isEqualTo("shop");
    assertThat(r.namespace()).isEqualTo("apps");
    assertThat(r.revision()).isEqualTo(2);
    assertThat(r.status()).isEqualTo(HelmStatus.SUPERSEDED);
    assertThat(r.chart()).isEqualTo("shop-0.2.0");
    assertThat(r.appVersion()).isEqualTo("1.1");
    assertThat(r.description()).isEqualTo("Upgrade complete");
    assertThat(r.firstDeployed()).isEqualTo(Instant.parse("2026-11-30T09:00:00.123456789Z"));
    assertThat(r.lastDeployed()).isEqualTo(Instant.parse("2026-11-30T08:05:00Z"));
    assertThat(r.manifest()).contains("kind: Secret");
    assertThat(r.hooks())
        .containsExactly(
            new HelmHook(
                "shop-migrate",
                "Job",
                "shop/templates/migrate.yaml",
                "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: shop-migrate\n",
                List.of("post-install", "post-upgrade")));
    assertThat(r.toString())
        .isEqualTo("HelmRevision[apps/shop revision 2 superseded]")
        .doesNotContain(SECRET_VALUE);
  }

  @Test
  void aConfigMapRecordAndAnUncompressedRecordAreReadAsHelmReadsThem() {
    HelmRecord configMap =
        new HelmRecord(
            HelmRecord.Driver.CONFIGMAP,
            "apps",
            "sh.helm.release.v1.shop.v1",
            null,
            Map.of("owner", "helm"),
            Base64.getEncoder()
                .encodeToString(json(1, "deployed").getBytes(StandardCharsets.UTF_8)));

    HelmRevision r = HelmRecords.decode(configMap, HelmLimits.defaults());

    assertThat(r.status()).isEqualTo(HelmStatus.DEPLOYED);
    assertThat(r.record().describe()).isEqualTo("ConfigMap apps/sh.helm.release.v1.shop.v1");
  }

  @Test
  void historyIsSortedByRevisionNumberNotByName() {
    List<HelmRevision> history =
        HelmRecords.history(
            "apps",
            "shop",
            List.of(secret(10, "deployed"), secret(9, "superseded"), secret(2, "superseded")),
            HelmLimits.defaults());

    assertThat(history).extracting(HelmRevision::revision).containsExactly(2, 9, 10);
  }

  @Test
  void aRecordOfAnotherReleaseIsRefused() {
    HelmRecordException e =
        catchThrowableOfType(
            HelmRecordException.class,
            () ->
                HelmRecords.history(
                    "apps", "cart", List.of(secret(1, "deployed")), HelmLimits.defaults()));

    assertThat(e.getMessage())
        .isEqualTo(
            "Helm release record Secret apps/sh.helm.release.v1.shop.v1: holds release"
                + " 'apps/shop', not apps/cart");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          sh.helm.release.v2.shop.v1 | helm.sh/release.v1 | the name says storage format v2; only storage format v1 (sh.helm.release.v1, Secret type helm.sh/release.v1, written by Helm 3 and 4) is read
          sh.helm.release.v1.shop.v1 | helm.sh/release.v2 | the Secret's type is 'helm.sh/release.v2'; only storage format v1 (sh.helm.release.v1, Secret type helm.sh/release.v1, written by Helm 3 and 4) is read
          shop.v1                    | helm.sh/release.v1 | the name must be sh.helm.release.v1.RELEASE.vREVISION
          sh.helm.release.v1.shop.v0 | helm.sh/release.v1 | the revision in the name must be a number from 1 to 2147483647
          """)
  void aRecordOfAnUnknownStorageVersionIsRefused(String name, String type, String rule) {
    HelmRecord record =
        new HelmRecord(
            HelmRecord.Driver.SECRET, "apps", name, type, Map.of(), encode(json(1, "deployed")));

    assertThat(refused(record).getMessage())
        .isEqualTo("Helm release record Secret apps/" + name + ": " + rule);
  }

  @Test
  void aRecordWhoseJsonDisagreesWithItsNameIsRefused() {
    HelmRecord record = secret("sh.helm.release.v1.shop.v3", encode(json(2, "deployed")));

    assertThat(refused(record).getMessage())
        .isEqualTo(
            "Helm release record Secret apps/sh.helm.release.v1.shop.v3: field version is 2, but"
                + " the record's name says revision 3");
  }

  @Test
  void anUnknownStatusIsRefusedNamingTheField() {
    assertThat(refused(secret(1, "exploded")).getMessage())
        .isEqualTo(
            "Helm release record Secret apps/sh.helm.release.v1.shop.v1: field info.status must"
                + " be one of unknown, deployed, uninstalled, superseded, failed, uninstalling,"
                + " pending-install, pending-upgrade, pending-rollback: 'exploded'");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          "chart":{"metadata":{"name":"shop","version":"0.2.0" | "chart":{"metadata":{"name":"shop" | field chart.metadata.version must be a non-empty string: missing
          "version":2, | "version":"2", | field version must be a whole number from 1: '2'
          "first_deployed":"2026-11-30T09:00:00.123456789Z" | "first_deployed":"yesterday" | field info.first_deployed must be an RFC 3339 time: 'yesterday'
          "hooks":[{"name":"shop-migrate", | "hooks":[{"name":7, | field hooks[0].name must be a non-empty string: '7'
          """)
  void aMissingOrMistypedFieldIsRefusedNamingItsPath(String from, String to, String rule) {
    String broken = json(2, "superseded").replace(from, to);
    assertThat(broken).isNotEqualTo(json(2, "superseded"));

    assertThat(refused(secret("sh.helm.release.v1.shop.v2", encode(broken))).getMessage())
        .isEqualTo("Helm release record Secret apps/sh.helm.release.v1.shop.v2: " + rule);
  }

  @Test
  void corruptDataIsRefusedAtTheStepThatFails() {
    String name = "sh.helm.release.v1.shop.v1";
    String prefix = "Helm release record Secret apps/" + name + ": ";
    byte[] gz = gzip(json(1, "deployed").getBytes(StandardCharsets.UTF_8));
    String truncated = Base64.getEncoder().encodeToString(Arrays.copyOf(gz, gz.length / 2));
    String notJson =
        Base64.getEncoder().encodeToString(gzip("{\"name\": ".getBytes(StandardCharsets.UTF_8)));
    String array = Base64.getEncoder().encodeToString(gzip("[1]".getBytes(StandardCharsets.UTF_8)));

    assertThat(refused(secret(name, "not base64!")).getMessage())
        .isEqualTo(prefix + "the release data is not base64: Illegal base64 character 20");
    assertThat(refused(secret(name, truncated)).getMessage())
        .isEqualTo(prefix + "the release data is not valid gzip (truncated or corrupt)");
    assertThat(refused(secret(name, notJson)).getMessage())
        .startsWith(prefix + "the release JSON: not valid JSON at line 1, column 10: ");
    assertThat(refused(secret(name, array)).getMessage())
        .isEqualTo(prefix + "the release JSON must be an object");
    assertThat(
            refused(
                    new HelmRecord(
                        HelmRecord.Driver.SECRET,
                        "apps",
                        name,
                        HelmRecords.SECRET_TYPE,
                        Map.of(),
                        null))
                .getMessage())
        .isEqualTo(prefix + "has no release data (key 'release')");
  }

  @Test
  void oversizedDataIsRefusedBeforeDecodingAndAGzipBombAfterTheInflateLimit() {
    String name = "sh.helm.release.v1.shop.v1";
    String prefix = "Helm release record Secret apps/" + name + ": ";
    String data = encode(json(1, "deployed"));
    HelmLimits small = new HelmLimits(data.length() - 1, 64 << 10, 100);
    String bomb = Base64.getEncoder().encodeToString(gzip(new byte[40 << 20]));

    assertThat(refused(secret(name, data), small).getMessage())
        .isEqualTo(
            prefix
                + "the release data is "
                + data.length()
                + " bytes encoded; the limit is "
                + (data.length() - 1)
                + " bytes ("
                + (data.length() - 1)
                + " bytes)");
    assertThat(refused(secret(name, bomb)).getMessage())
        .isEqualTo(prefix + "the release data inflated is larger than 32 MiB (the limit)");
  }

  @Test
  void jsonNestedDeeperThanTheLimitIsRefused() {
    String deep = "[".repeat(150) + "]".repeat(150);
    String json = json(1, "deployed").replace("\"weight\":0", "\"weight\":" + deep);

    assertThat(refused(secret("sh.helm.release.v1.shop.v1", encode(json))).getMessage())
        .startsWith(
            "Helm release record Secret apps/sh.helm.release.v1.shop.v1: the release JSON:"
                + " nesting is deeper than 100 levels (the limit)");
  }

  @Test
  void twoRecordsOfOneRevisionAreRefused() {
    HelmRecord copy =
        new HelmRecord(
            HelmRecord.Driver.CONFIGMAP,
            "apps",
            "sh.helm.release.v1.shop.v1",
            null,
            Map.of(),
            encode(json(1, "deployed")));

    HelmRecordException e =
        catchThrowableOfType(
            HelmRecordException.class,
            () ->
                HelmRecords.history(
                    "apps", "shop", List.of(secret(1, "deployed"), copy), HelmLimits.defaults()));

    assertThat(e.getMessage())
        .isEqualTo(
            "Helm release record ConfigMap apps/sh.helm.release.v1.shop.v1: revision 1 is also"
                + " held by Secret apps/sh.helm.release.v1.shop.v1");
  }
}
