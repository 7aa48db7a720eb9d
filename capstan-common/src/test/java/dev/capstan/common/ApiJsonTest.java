package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApiJsonTest {

  @Test
  void everyNumberTheApiServerWouldNotReadAsWrittenIsNamedByItsPathRuleAndValue() {
    Map<String, Object> tree =
        Map.of(
            "spec",
            Map.of(
                "replicas",
                new BigInteger("123456789012345678901234567890"),
                "ports",
                List.of(Map.of("port", 80), Map.of("port", new BigInteger("-9223372036854775809"))),
                "limits",
                Map.of("a.b", new BigDecimal("1e400"), "ok", new BigDecimal("1e300")),
                "ratio",
                Double.NaN,
                "max",
                Long.MAX_VALUE));

    assertThat(ApiJson.numberProblems("crds[0].", tree))
        .containsExactlyInAnyOrder(
            "crds[0].spec.replicas must be an integer of at most 64 bits (from"
                + " -9223372036854775808 to 9223372036854775807): the API server reads a larger one"
                + " as an inexact float, which an integer field stores as 0 or a wrapped value;"
                + " quote it for a string: 123456789012345678901234567890",
            "crds[0].spec.ports[1].port must be an integer of at most 64 bits (from"
                + " -9223372036854775808 to 9223372036854775807): the API server reads a larger one"
                + " as an inexact float, which an integer field stores as 0 or a wrapped value;"
                + " quote it for a string: -9223372036854775809",
            "crds[0].spec.limits['a.b'] must be a number within a 64-bit float's range (at most"
                + " 1.7976931348623157E308 in size), as the API server reads it; quote it for a"
                + " string: 1E+400",
            "crds[0].spec.ratio must be a finite number (JSON has no NaN or infinity); quote it"
                + " for a string: NaN");
  }

  @Test
  void numbersWithinTheServersReadingAreNoProblem() {
    assertThat(
            ApiJson.numberProblems(
                "x: ",
                List.of(1, -1L, Long.MIN_VALUE, new BigInteger("9223372036854775807"), 1.5e308)))
        .isEmpty();
    assertThat(ApiJson.numberProblems("x: ", null)).isEmpty();
  }

  @Test
  void measureGivesTheCompactJsonLengthSkipsTextFieldsAndHidesValuesWhenAsked() throws Exception {
    Map<String, Object> object = new LinkedHashMap<>();
    object.put("kind", "Secret");
    object.put("name", "w\u00e9b \"\n\ud83d\ude00");
    object.put("data", Map.of("pin", new BigInteger("123456789012345678901234567890")));
    object.put("extra", List.of(true, 12, new BigInteger("123456789012345678901234567891")));
    List<String> problems = new ArrayList<>();

    long length = ApiJson.measure("Secret shop/web: ", object, List.of("data"), true, problems);

    assertThat(length)
        .isEqualTo(
            new ObjectMapper()
                .writeValueAsString(object)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8)
                .length);
    assertThat(problems)
        .containsExactly(
            "Secret shop/web: extra[2] must be an integer of at most 64 bits (from"
                + " -9223372036854775808 to 9223372036854775807): the API server reads a larger one"
                + " as an inexact float, which an integer field stores as 0 or a wrapped value;"
                + " quote it for a string (the value is not shown)");
  }

  @Test
  void aPathQuotesAndEscapesAKeyThatIsNoWord() {
    assertThat(ApiJson.path(List.of("spec", "template", "a.b\nc", 3, "x_y-z")))
        .isEqualTo("spec.template['a.b\\nc'][3].x_y-z");
    assertThat(ApiJson.path(List.of())).isEmpty();
  }
}
