package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DurationsTest {
  @ParameterizedTest
  @CsvSource({
    "PT0S, 0s",
    "PT0.000999S, 0s",
    "PT0.85S, 850ms",
    "PT1S, 1s",
    "PT1.55S, 1.5s",
    "PT9.99S, 9.9s",
    "PT10.7S, 10s",
    "PT42S, 42s",
    "PT1M, 1m",
    "PT2M59.554025229S, 2m59s",
    "PT15M, 15m",
    "PT1H5M30S, 1h5m",
    "PT24H, 1d",
    "PT51H, 2d3h",
    "-PT1M30S, -1m30s",
  })
  void printsAsPeopleWriteIt(Duration duration, String expected) {
    assertThat(Durations.format(duration)).isEqualTo(expected);
  }
}
