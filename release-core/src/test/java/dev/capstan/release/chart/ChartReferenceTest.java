package dev.capstan.release.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * {@link ChartReference}: a repository URL holding a user and password is refused, and no message
 * about a chart's URL shows the password.
 */
class ChartReferenceTest {

  @Test
  void aRepositoryUrlHoldingAUserOrPasswordIsRefusedWithoutShowingThem() {
    assertThatThrownBy(
            () -> ChartReference.parse("shop", "https://ci:glpat-hunter2@charts.example/helm"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--repo must not hold a user or password (USER:PASSWORD@): give --username and"
                + " --password-stdin instead: 'https://***@charts.example/helm'");
    assertThatThrownBy(() -> ChartReference.parse("shop", "http://ci@127.0.0.1:8080/charts"))
        .hasMessageEndingWith(": 'http://***@127.0.0.1:8080/charts'");
  }

  @Test
  void anOciOrUrlChartRefusedForItsShapeIsShownWithoutItsPassword() {
    assertThatThrownBy(() -> ChartReference.parse("oci://ci:hunter2@registry.example/shop", null))
        .hasMessageEndingWith(": 'oci://***@registry.example/shop'")
        .message()
        .doesNotContain("hunter2");
    assertThatThrownBy(() -> ChartReference.parse("https://ci:hunter2@charts.example/shop", null))
        .message()
        .doesNotContain("hunter2");
  }

  @Test
  void onlyAnAtSignBeforeTheHostIsAUser() {
    assertThat(ChartReference.holdsUserInfo("https://charts.example/a@b/index")).isFalse();
    assertThat(ChartReference.holdsUserInfo("https://charts.example?x=a@b")).isFalse();
    assertThat(ChartReference.holdsUserInfo("https://a:b:c@charts.example")).isTrue();
    assertThat(ChartReference.withoutUserInfo("https://a@b@charts.example/x"))
        .isEqualTo("https://***@charts.example/x");
    assertThat(ChartReference.withoutUserInfo("https://charts.example/x"))
        .isEqualTo("https://charts.example/x");
    assertThat(new ChartReference.Repository("https://charts.example/a@b", "shop").describe())
        .isEqualTo("https://charts.example/a@b shop");
  }
}
