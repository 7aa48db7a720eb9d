package dev.capstan.update.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoDurationTest {
  @ParameterizedTest
  @CsvSource({
    "PT0S, 0s",
    "PT5M, 5m0s",
    "PT2M30S, 2m30s",
    "PT1H, 1h0m0s",
    "PT1H2M3S, 1h2m3s",
    "PT1.5S, 1.5s",
    "PT0.25S, 250ms",
    "PT-5S, -5s",
  })
  void formatsLikeGo(Duration d, String expected) {
    assertThat(GoDuration.format(d)).isEqualTo(expected);
  }
}
