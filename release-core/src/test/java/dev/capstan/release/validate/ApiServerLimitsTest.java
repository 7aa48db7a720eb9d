package dev.capstan.release.validate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ApiJson;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class ApiServerLimitsTest {
  private static Map<String, @Nullable Object> object(
      String kind, Map<String, ?> labels, Map<String, ?> annotations) {
    Map<String, @Nullable Object> metadata = new LinkedHashMap<>();
    metadata.put("name", "web");
    metadata.put("namespace", "shop");
    metadata.put("labels", labels);
    metadata.put("annotations", annotations);
    Map<String, @Nullable Object> o = new LinkedHashMap<>();
    o.put("apiVersion", "v1");
    o.put("kind", kind);
    o.put("metadata", metadata);
    return o;
  }

  @Test
  void anObjectWithinEveryLimitHasNoProblems() {
    Map<String, @Nullable Object> o =
        object("ConfigMap", Map.of("app.kubernetes.io/name", "web", "tier", ""), Map.of("a", "b"));
    o.put("data", Map.of("k", "v".repeat(1000)));
    assertThat(ApiServerLimits.check(o)).isEmpty();
  }

  @Test
  void configMapDataOverOneMebibyteIsReportedWithItsSize() {
    Map<String, @Nullable Object> o = object("ConfigMap", Map.of(), Map.of());
    o.put("data", Map.of("a", "x".repeat(1 << 19), "b", "y".repeat((1 << 19) + 1)));
    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "ConfigMap shop/web: data must total at most 1048576 bytes (1 MiB): 1048577");
  }

  @Test
  void secretDataCountsDecodedBytesAndNeverShowsAValue() {
    Map<String, @Nullable Object> o = object("Secret", Map.of(), Map.of());
    String base64 =
        java.util.Base64.getEncoder()
            .encodeToString(
                "s3cret!".repeat(150_000).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    o.put("data", Map.of("password", base64));
    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "Secret shop/web: data must total at most 1048576 bytes (1 MiB): 1050000 (the values"
                + " are not shown)")
        .allSatisfy(p -> assertThat(p).doesNotContain("s3cret"));
  }

  @Test
  void labelAndAnnotationKeysAndLabelValuesFollowTheApiServerRules() {
    Map<String, String> labels = new TreeMap<>();
    labels.put("ok/name", "v");
    labels.put("Bad_Prefix/name", "v");
    labels.put("-name", "v");
    labels.put("n".repeat(64), "v");
    labels.put("value", "has space");
    labels.put("esc", "a\u001b[2Jb");
    Map<String, @Nullable Object> o = object("Service", labels, Map.of("a b", "x"));
    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "Service shop/web: metadata.labels['-name'] key "
                + ApiServerLimits.KEY_RULE
                + ": '-name'",
            "Service shop/web: metadata.labels['Bad_Prefix/name'] key "
                + ApiServerLimits.KEY_RULE
                + ": 'Bad_Prefix/name'",
            "Service shop/web: metadata.labels['esc'] value "
                + ApiServerLimits.LABEL_VALUE_RULE
                + ": 'a\\u001b[2Jb'",
            "Service shop/web: metadata.labels['"
                + "n".repeat(64)
                + "'] key "
                + ApiServerLimits.KEY_RULE
                + ": '"
                + "n".repeat(64)
                + "'",
            "Service shop/web: metadata.labels['value'] value "
                + ApiServerLimits.LABEL_VALUE_RULE
                + ": 'has space'",
            "Service shop/web: metadata.annotations['a b'] key "
                + ApiServerLimits.KEY_RULE
                + ": 'a b'");
  }

  @Test
  void annotationsOverTwoHundredFiftySixKibibytesAreReported() {
    Map<String, @Nullable Object> o =
        object(
            "Deployment", Map.of(), Map.of("a", "x".repeat(128 << 10), "b", "y".repeat(128 << 10)));
    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "Deployment shop/web: metadata.annotations must total at most 262144 bytes (256 KiB),"
                + " keys and values: 262146");
  }

  @Test
  void anObjectOverOneAndAHalfMebibytesSerializedIsReported() {
    Map<String, String> data = new TreeMap<>();
    for (int i = 0; i < 150_000; i++) {
      data.put(String.format("k%06d", i), "v");
    }
    Map<String, @Nullable Object> o = object("ConfigMap", Map.of(), Map.of());
    o.put("data", data);
    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "ConfigMap shop/web: the object serialized must be at most 1572864 bytes (1.5 MiB, the"
                + " API server's request limit): 2100121");
  }

  @Test
  void typedSpecsAreCheckedThroughTheObjectsTheyRenderTo() {
    ConfigMapSpec big = ConfigMapSpec.of("shop", "big", Map.of("a", "x".repeat((1 << 20) + 1)));
    SecretSpec secret = SecretSpec.of("shop", "db", Map.of("pw", "p".repeat((1 << 20) + 1)));
    ServiceSpec web =
        ServiceSpec.builder("shop", "web")
            .image("web:1")
            .env("BLOB", "b".repeat(1600 << 10))
            .build();
    assertThat(ApiServerLimits.check(big.render().get(0).content()))
        .containsExactly(
            "ConfigMap shop/big: data must total at most 1048576 bytes (1 MiB): 1048577");
    assertThat(ApiServerLimits.check(secret.render().get(0).content()))
        .containsExactly(
            "Secret shop/db: data must total at most 1048576 bytes (1 MiB): 1048577 (the values are"
                + " not shown)");
    assertThat(ApiServerLimits.check(web.render().get(0).content()))
        .singleElement()
        .asString()
        .startsWith("Deployment shop/web: the object serialized must be at most 1572864 bytes");
  }

  @Test
  void configMapAndSecretValuesMustBeStringsAndAreNeverCoerced() {
    Map<String, Object> cm =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "ConfigMap",
            "metadata",
            Map.of("name", "ok", "namespace", "shop"),
            "data",
            Map.of("level", new java.math.BigDecimal("1.10")));
    Map<String, Object> secret =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "Secret",
            "metadata",
            Map.of("name", "db", "namespace", "shop"),
            "stringData",
            Map.of("pin", 1234));

    assertThat(ApiServerLimits.check(cm))
        .containsExactly(
            "ConfigMap shop/ok: data['level'] must be a string; quote it to keep the text: '1.10'");
    assertThat(ApiServerLimits.check(secret))
        .containsExactly(
            "Secret shop/db: stringData['pin'] must be a string; quote it to keep the text (the value"
                + " is not shown)");
  }

  private static Map<String, @Nullable Object> deployment(Object replicas) {
    Map<String, @Nullable Object> o = object("Deployment", Map.of(), Map.of());
    o.put("apiVersion", "apps/v1");
    o.put("spec", Map.of("replicas", replicas));
    return o;
  }

  @Test
  void anIntegerBeyondSixtyFourBitsIsRefusedNamingTheFieldAndTheValue() {
    // the API server reads it as a float and stores replicas 0: never sent
    assertThat(ApiServerLimits.check(deployment(new BigInteger("123456789012345678901234567890"))))
        .containsExactly(
            "Deployment shop/web: spec.replicas must be an integer of at most 64 bits (from"
                + " -9223372036854775808 to 9223372036854775807): the API server reads a larger one"
                + " as an inexact float, which an integer field stores as 0 or a wrapped value;"
                + " quote it for a string: 123456789012345678901234567890");
    assertThat(ApiServerLimits.check(deployment(new BigInteger("-9223372036854775809"))))
        .singleElement()
        .asString()
        .endsWith(": -9223372036854775809");
  }

  @Test
  void integersWithinSixtyFourBitsAndFiniteDecimalsPass() {
    assertThat(ApiServerLimits.check(deployment(new BigInteger("9223372036854775807")))).isEmpty();
    assertThat(ApiServerLimits.check(deployment(new BigInteger("-9223372036854775808")))).isEmpty();
    assertThat(ApiServerLimits.check(deployment(Long.MAX_VALUE))).isEmpty();
    assertThat(ApiServerLimits.check(deployment(new BigDecimal("1e308")))).isEmpty();
    assertThat(ApiServerLimits.check(deployment(new BigDecimal("1e-400")))).isEmpty();
    assertThat(ApiServerLimits.check(deployment(1.5d))).isEmpty();
  }

  @Test
  void aDecimalBeyondTheRangeOfADoubleIsRefused() {
    assertThat(ApiServerLimits.check(deployment(new BigDecimal("1e400"))))
        .containsExactly(
            "Deployment shop/web: spec.replicas must be a number within a 64-bit float's range (at"
                + " most 1.7976931348623157E308 in size), as the API server reads it; quote it for"
                + " a string: 1E+400");
    assertThat(ApiServerLimits.check(deployment(new BigDecimal("-2e308"))))
        .singleElement()
        .asString()
        .endsWith(": -2E+308");
  }

  @Test
  void notANumberAndInfinitiesAreRefused() {
    assertThat(ApiServerLimits.check(deployment(Double.NaN)))
        .containsExactly(
            "Deployment shop/web: spec.replicas must be a finite number (JSON has no NaN or"
                + " infinity); quote it for a string: NaN");
    assertThat(ApiServerLimits.check(deployment(Float.NEGATIVE_INFINITY)))
        .containsExactly(
            "Deployment shop/web: spec.replicas must be a finite number (JSON has no NaN or"
                + " infinity); quote it for a string: -Infinity");
  }

  @Test
  void everyNumberIsFoundByItsPathThroughListsAndKeysThatAreNoWords() {
    Map<String, @Nullable Object> o = object("ConfigMap", Map.of(), Map.of());
    o.put("kind", "Widget");
    o.put("apiVersion", "example.com/v1");
    o.put(
        "spec",
        Map.of(
            "ports",
            List.of(Map.of("port", 80), Map.of("port", new BigInteger("99999999999999999999"))),
            "limits",
            Map.of("a.b\nc", new BigDecimal("1e999"))));
    assertThat(ApiServerLimits.check(o))
        .containsExactlyInAnyOrder(
            "Widget shop/web: spec.ports[1].port "
                + ApiJson.INTEGER_RULE
                + "; quote it for a string: 99999999999999999999",
            "Widget shop/web: spec.limits['a.b\\nc'] "
                + ApiJson.DECIMAL_RULE
                + "; quote it for a string: 1E+999");
  }

  @Test
  void aSecretsNumbersAreNeverShownAndDataValuesAreReportedOnceAsStrings() {
    Map<String, @Nullable Object> secret = object("Secret", Map.of(), Map.of());
    secret.put("data", Map.of("pin", new BigInteger("123456789012345678901234567890")));
    secret.put("extra", Map.of("n", new BigInteger("123456789012345678901234567891")));
    Map<String, @Nullable Object> cm = object("ConfigMap", Map.of(), Map.of());
    cm.put("data", Map.of("big", new BigDecimal("1e400")));

    assertThat(ApiServerLimits.check(secret))
        .containsExactly(
            "Secret shop/web: data['pin'] must be a string; quote it to keep the text (the value is"
                + " not shown)",
            "Secret shop/web: extra.n "
                + ApiJson.INTEGER_RULE
                + "; quote it for a string (the value is not shown)")
        .allSatisfy(p -> assertThat(p).doesNotContain("12345678901234567890"));
    assertThat(ApiServerLimits.check(cm))
        .containsExactly(
            "ConfigMap shop/web: data['big'] must be a string; quote it to keep the text: '1E+400'");
  }

  @Test
  void aSecretsDataMustBeBase64AndItsTypeAStringAndNeitherIsShown() {
    Map<String, @Nullable Object> o = object("Secret", Map.of(), Map.of());
    o.put("type", 42);
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("token", "NotB64!!Sup3rS3cretPW3");
    data.put("unpadded", "U3VwM3JTM2NyZXRQVzk");
    data.put("wrapped", "U3VwM3JTM2Ny\nZXRQVzk=");
    data.put("padded", "U3VwM3JTM2NyZXRQVzk=");
    o.put("data", data);

    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "Secret shop/web: type must be a string (the value is not shown)",
            "Secret shop/web: data['token'] must be base64 (the value is not shown)",
            "Secret shop/web: data['unpadded'] must be base64 (the value is not shown)")
        .noneMatch(p -> p.contains("Sup3r") || p.contains("U3Vw") || p.contains("42"));
  }

  @Test
  void aSecretsDataAndStringDataMustBeMappingsAndAreNeverShown() {
    Map<String, @Nullable Object> o = object("Secret", Map.of(), Map.of());
    o.put("data", "U3VwM3JTM2NyZXRQVzk=");
    o.put("stringData", java.util.List.of("Sup3rS3cretPW9"));

    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "Secret shop/web: data must be a mapping (the value is not shown)",
            "Secret shop/web: stringData must be a mapping (the value is not shown)");
  }

  @Test
  void aSecretKindOfAnotherGroupIsNotHeldToTheCoreSecretsShape() {
    Map<String, @Nullable Object> o = object("Secret", Map.of(), Map.of());
    o.put("apiVersion", "vault.example.com/v1");
    o.put("type", 42);
    o.put("data", Map.of("path", "kv/shop/db"));

    assertThat(ApiServerLimits.check(o)).isEmpty();
  }

  /**
   * A value the API server would refuse by type is quoted in its refusal: for an environment
   * variable named as a secret, Capstan refuses it first without showing it.
   */
  @Test
  void aSecretNamedEnvironmentVariableWithAValueOfAnotherTypeIsRefusedWithoutShowingIt() {
    Map<String, @Nullable Object> o = object("Pod", Map.of(), Map.of());
    o.put(
        "spec",
        Map.of(
            "containers",
            List.of(
                Map.of(
                    "name",
                    "app",
                    "env",
                    List.of(
                        Map.of("name", "PORT", "value", 8080),
                        Map.of("name", "DB_PASSWORD", "value", 12345678),
                        Map.of("name", "API_TOKEN", "value", "quoted"))))));

    assertThat(ApiServerLimits.check(o))
        .containsExactly(
            "Pod shop/web: spec.containers[0].env[1].value "
                + ApiJson.ENV_VALUE_RULE
                + " (the value is not shown)");
  }

  @Test
  void aHiddenObjectShowsNoValueOfAnyField() {
    Map<String, @Nullable Object> o = object("ConfigMap", Map.of("tier", "not ok"), Map.of());
    o.put("data", Map.of("k", 42));
    o.put("spec", Map.of("x", new BigInteger("123456789012345678901234567890")));

    assertThat(ApiServerLimits.check(o, true))
        .containsExactly(
            "ConfigMap shop/web: data['k'] must be a string; quote it to keep the text (the value"
                + " is not shown)",
            "ConfigMap shop/web: metadata.labels['tier'] value "
                + ApiServerLimits.LABEL_VALUE_RULE
                + " (the value is not shown)",
            "ConfigMap shop/web: spec.x "
                + ApiJson.INTEGER_RULE
                + "; quote it for a string (the value is not shown)");
    assertThat(String.join("\n", ApiServerLimits.check(o)))
        .as("shown when not hidden")
        .contains("'not ok'", "42", "123456789012345678901234567890");
  }
}
