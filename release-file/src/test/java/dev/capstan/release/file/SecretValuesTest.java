package dev.capstan.release.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.ChartOrigin;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link SecretValues} on inputs a tenant can make as large as the limits allow: the values are
 * judged against the Secrets' texts in one pass, so a long value that is almost inside a long
 * Secret's value costs no more than its length (a {@link String#contains} of each pair took 20 s
 * for a value of 250,000 chars against a Secret's of 500,000).
 */
class SecretValuesTest {
  private static final String SECRET = "a".repeat(500_000);

  @Test
  void aLongValueAlmostInsideALongSecretIsJudgedInOnePassAndLeftShown() {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("blob", "a".repeat(250_000) + "b");
    values.put("other", Map.of("blob", "a".repeat(240_000) + "c"));
    values.put("copy", "a".repeat(250_000));
    values.put("list", List.of("b" + "a".repeat(250_000), SECRET, true));
    values.put("short", "aaaaa");
    values.put("pin", "1234");

    SecretValues.Masked masked = SecretValues.mask(values, List.of(), List.of(SECRET, "1234"));

    assertThat(masked.paths()).containsExactly("copy", "list[1]", "pin");
    assertThat(masked.values())
        .isEqualTo(
            Map.of(
                "blob",
                "a".repeat(250_000) + "b",
                "other",
                Map.of("blob", "a".repeat(240_000) + "c"),
                "copy",
                ChartOrigin.MASKED,
                "list",
                List.of("b" + "a".repeat(250_000), ChartOrigin.MASKED, true),
                "short",
                "aaaaa",
                "pin",
                ChartOrigin.MASKED));
  }

  @Test
  void anEmptySecretValueMasksNoEmptyValue() {
    SecretValues.Masked masked =
        SecretValues.mask(Map.of("note", "", "name", "web"), List.of(), List.of("", "web"));

    assertThat(masked.paths()).containsExactly("name");
    assertThat(masked.values()).isEqualTo(Map.of("note", "", "name", ChartOrigin.MASKED));
  }

  @Test
  void aFailuresMessageIsMaskedInOnePassHoweverManyValuesASecretGives() {
    List<String> given = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      given.add(String.format("secret-%06d", i));
    }
    given.add("pa\"ss-word");
    String message =
        "helm template failed: cannot parse \"secret-000017\" nor \"secret-049999\\\"x\" nor"
            + " \"pa\\\"ss-word\" nor \"secret-00\"; nothing was written";

    assertThat(SecretValues.maskIn(message, given))
        .isEqualTo(
            "helm template failed: cannot parse \"(masked)\" nor \"(masked)\\\"x\" nor"
                + " \"(masked)\" nor \"secret-00\"; nothing was written");
  }
}
