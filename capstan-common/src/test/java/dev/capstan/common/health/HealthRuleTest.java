package dev.capstan.common.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link HealthRule}'s checks of a rule's kind, which a tenant's Release may give. */
class HealthRuleTest {
  private static final String RULE =
      "kind must be group/Kind, Kind for the core group, group/* or *.domain/*";

  /** A DNS subdomain of {@code length} characters: labels of 63, and a shorter last one. */
  private static String group(int length) {
    StringBuilder out = new StringBuilder();
    while (length - out.length() > 64) {
      out.append("a".repeat(63)).append('.');
    }
    return out.append("b".repeat(length - out.length())).toString();
  }

  @Test
  void aKindTooLongToCheckIsRefusedByItsLengthWithoutOverflowingTheStack() {
    String kind = "a" + ".a".repeat(3_000) + "/Kind";

    assertThat(HealthRule.problems(kind, "true", null, null))
        .containsExactly(
            RULE + ", of at most 317 characters: '" + "a.".repeat(32) + "…' (6006 characters)");
  }

  @Test
  void theLongestKindIsAGroupOf253AndAKindOf63() {
    String longest = group(253) + "/W" + "a".repeat(62);
    assertThat(longest).hasSize(HealthRule.MAX_KIND);
    assertThat(HealthRule.problems(longest, "true", null, null)).isEmpty();

    String groupTooLong = group(254) + "/Widget";
    assertThat(HealthRule.problems(groupTooLong, "true", null, null))
        .containsExactly(RULE + ": '" + groupTooLong + "'");
    assertThat(HealthRule.problems(longest + "a", "true", null, null))
        .containsExactly(
            RULE + ", of at most 317 characters: '" + "a".repeat(63) + ".…' (318 characters)");
  }
}
