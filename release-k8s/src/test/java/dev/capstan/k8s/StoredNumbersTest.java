package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.release.model.Manifest;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link StoredNumbers}: a number beyond 32 bits that a dry run's answer holds as another number is
 * named with its path, the stored value and the value sent; everything else is no verdict.
 */
class StoredNumbersTest {

  private static Manifest deployment(Object replicas, Object deadline) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            "apps/v1",
            "kind",
            "Deployment",
            "metadata",
            Map.of("name", "web", "namespace", "shop"),
            "spec",
            Map.of(
                "replicas",
                replicas,
                "progressDeadlineSeconds",
                600,
                "template",
                Map.of(
                    "spec",
                    Map.of(
                        "activeDeadlineSeconds",
                        deadline,
                        "containers",
                        List.of(
                            Map.of("name", "a", "image", "a"),
                            Map.of(
                                "name",
                                "b",
                                "image",
                                "b",
                                "resources",
                                Map.of("limits", Map.of("memory", 8589934592L)))))))));
  }

  private static JsonObject answer(String replicas, String deadline, String containers) {
    return JsonParser.parseString(
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
                + "\"namespace\":\"shop\",\"generation\":1},\"spec\":{\"replicas\":"
                + replicas
                + ",\"progressDeadlineSeconds\":600,\"template\":{\"spec\":{"
                + "\"activeDeadlineSeconds\":"
                + deadline
                + ",\"containers\":"
                + containers
                + "}}}}")
        .getAsJsonObject();
  }

  private static final String CONTAINERS =
      "[{\"name\":\"b\",\"image\":\"b\",\"resources\":{\"limits\":{\"memory\":\"8Gi\"}}},"
          + "{\"name\":\"a\",\"image\":\"a\"}]";

  @Test
  void anInt32FieldThatWrapsTheValueSentIsRefusedWithThePathTheStoredValueAndTheValueSent() {
    assertThat(
            StoredNumbers.changed(
                deployment(4294967298L, 4294967298L), answer("2", "4294967298", CONTAINERS)))
        .hasValue(
            "Deployment shop/web: spec.replicas must be a number its field stores as sent; the API"
                + " server's dry run stores 2 (a 32-bit integer field holds -2147483648 to"
                + " 2147483647 and keeps the low 32 bits of a larger integer without an error):"
                + " 4294967298");
  }

  @Test
  void everyChangedNumberIsListedAndAnExactBigIntegerIsComparedByValue() {
    assertThat(
            StoredNumbers.changed(
                deployment(new BigInteger("-4294967295"), new BigInteger("9223372036854775807")),
                answer("1", "9.223372036854775807e18", CONTAINERS)))
        .hasValue(
            "Deployment shop/web: spec.replicas must be a number its field stores as sent; the API"
                + " server's dry run stores 1"
                + StoredNumbers.WHY
                + ": -4294967295");
  }

  @Test
  void an64BitFieldAQuantityStoredAsTextAndNumbersWithin32BitsAreNoVerdict() {
    // activeDeadlineSeconds is int64: stored as sent; memory is a quantity, answered as text
    assertThat(
            StoredNumbers.changed(
                deployment(3, 4294967298L), answer("3", "4294967298", CONTAINERS)))
        .isEmpty();
    // a webhook's change of a value within 32 bits is no refusal
    assertThat(StoredNumbers.changed(deployment(3, 60), answer("5", "30", CONTAINERS))).isEmpty();
    // a field the answer does not hold, or holds as another type, is no verdict
    assertThat(
            StoredNumbers.changed(
                deployment(4294967298L, 4294967298L), answer("\"x\"", "null", "[]")))
        .isEmpty();
  }

  @Test
  void aNamedListElementIsComparedWithTheAnswersElementOfTheSameName() {
    Manifest sent =
        Manifest.of(
            Map.of(
                "apiVersion",
                "example.com/v1",
                "kind",
                "Widget",
                "metadata",
                Map.of("name", "w", "namespace", "shop"),
                "spec",
                Map.of(
                    "items",
                    List.of(
                        Map.of("name", "a", "size", 4294967296L),
                        Map.of("name", "b", "size", 4294967297L)))));
    JsonObject answer =
        JsonParser.parseString(
                "{\"spec\":{\"items\":[{\"name\":\"b\",\"size\":1},"
                    + "{\"name\":\"a\",\"size\":4294967296}]}}")
            .getAsJsonObject();

    assertThat(StoredNumbers.changed(sent, answer))
        .hasValue(
            "Widget shop/w: spec.items[1].size must be a number its field stores as sent; the API"
                + " server's dry run stores 1"
                + StoredNumbers.WHY
                + ": 4294967297");
  }

  @Test
  void aSecretsNumbersAreNeverShown() {
    Manifest secret =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Secret",
                "metadata",
                Map.of("name", "s", "namespace", "shop"),
                "pin",
                12345678901L));
    assertThat(
            StoredNumbers.changed(
                secret, JsonParser.parseString("{\"pin\":3755744309}").getAsJsonObject()))
        .hasValue(
            "Secret shop/s: pin must be a number its field stores as sent; the API server's dry run"
                + " stores another"
                + StoredNumbers.WHY
                + " (the value is not shown)")
        .get()
        .asString()
        .doesNotContain("12345678901")
        .doesNotContain("3755744309");
  }
}
