package dev.capstan.update.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SemverTest {

  @ParameterizedTest(name = "{0} < {1}")
  @CsvSource({
    "1.0.0, 2.0.0",
    "2.0.0, 2.1.0",
    "2.1.0, 2.1.1",
    "v0.9.9, v0.10.0",
    "1.0.0-alpha, 1.0.0-alpha.1",
    "1.0.0-alpha.1, 1.0.0-alpha.beta",
    "1.0.0-alpha.beta, 1.0.0-beta",
    "1.0.0-beta, 1.0.0-beta.2",
    "1.0.0-beta.2, 1.0.0-beta.11",
    "1.0.0-beta.11, 1.0.0-rc.1",
    "1.0.0-rc.1, 1.0.0",
    "1.0.0-rc.2, 1.0.0-rc.10",
    "1.0.0-1, 1.0.0-alpha",
    "1.0.0-99999999999999999999, 1.0.0-100000000000000000000",
    "1.0.0-x-y, 1.0.0-x-z",
  })
  void precedence(String lower, String higher) {
    assertThat(Semver.parse(lower)).isLessThan(Semver.parse(higher));
    assertThat(Semver.parse(higher)).isGreaterThan(Semver.parse(lower));
  }

  @Test
  void buildMetadataAndTheVPrefixDoNotAffectPrecedence() {
    assertThat(Semver.parse("v1.2.3+build.5").compareTo(Semver.parse("1.2.3"))).isZero();
    assertThat(Semver.parse("v1.2.3-rc.1+exp.sha.5114f85"))
        .isEqualTo(new Semver(1, 2, 3, List.of("rc", "1"), List.of("exp", "sha", "5114f85")));
    assertThat(Semver.parse("v1.2.3-rc.1+b.7")).hasToString("1.2.3-rc.1+b.7");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "1",
        "1.2",
        "1.2.3.4",
        "01.2.3",
        "1.02.3",
        "1.2.03",
        "1.2.3-",
        "1.2.3-01",
        "1.2.3-a..b",
        "1.2.3+",
        "1.2.3+a..b",
        "V1.2.3",
        "vv1.2.3",
        " 1.2.3",
        "latest",
        "1.2.3-beta!",
        "99999999999999999999.0.0"
      })
  void rejectsNonSemver(String text) {
    assertThat(Semver.tryParse(text)).isEmpty();
    assertThat(Semver.isValid(text)).isFalse();
    assertThatThrownBy(() -> Semver.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "version must be semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] with an optional"
                + " leading v: '"
                + text
                + "'");
  }

  @Test
  void sameMinorComparesMajorAndMinorOnly() {
    assertThat(Semver.parse("v1.14.2").sameMinor(Semver.parse("1.14.5-rc.1"))).isTrue();
    assertThat(Semver.parse("v1.14.5").sameMinor(Semver.parse("v1.15.0"))).isFalse();
    assertThat(Semver.parse("v1.14.5").sameMinor(Semver.parse("v2.14.5"))).isFalse();
  }

  @Test
  void recordValidatesItsIdentifiers() {
    assertThatThrownBy(() -> new Semver(1, 0, 0, List.of("01"), List.of()))
        .hasMessage(
            "prerelease identifier must match (?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*): '01'");
    assertThatThrownBy(() -> Semver.of(-1, 0, 0))
        .hasMessage("version numbers must not be negative: -1.0.0");
    assertThat(Semver.of(1, 2, 3).isPrerelease()).isFalse();
  }
}
