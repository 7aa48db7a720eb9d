package dev.capstan.cel;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.re2j.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bound of a pattern's program is never below the size RE2J (which CEL's {@code matches} uses,
 * and which comes with it) compiles the pattern to, and is read without compiling it.
 */
class RegexSizeTest {
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "",
        "Ready",
        "(x+x+)+y",
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        "^v?[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$",
        "(?i)ready|healthy|(?:established)",
        "(?P<major>\\d+)\\.(?P<minor>\\d+)",
        "\\p{Greek}+\\pL*\\x{41}\\x41[[:alpha:]\\]]+",
        "\\Qa{1000}b\\E+",
        "x{1000}",
        "x{2,}y{3,5}z{,3}",
        "(a|bc|def){3,5}",
        "((ab){2}){3}",
        "(x{1000}){1000}",
        "[^]a]{0,1000}",
        "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p"
      })
  void theBoundIsNeverBelowTheCompiledProgram(String pattern) {
    assertThat(RegexSize.of(pattern))
        .isGreaterThanOrEqualTo(Pattern.compile(pattern).programSize());
  }

  @Test
  void aNestedRepetitionIsBoundedWithoutCompilingIt() {
    // RE2J compiling it runs out of memory: a billion instructions
    assertThat(RegexSize.of("((x{1000}){1000}){1000}")).isGreaterThan(1_000_000_000L);
    assertThat(RegexSize.of("(((((x{1000}){1000}){1000}){1000}){1000}){1000}"))
        .isEqualTo(RegexSize.MAX);
    assertThat(RegexSize.of("(x+x+)+y")).isEqualTo(12);
  }
}
