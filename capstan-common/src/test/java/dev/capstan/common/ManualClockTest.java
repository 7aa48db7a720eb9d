package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualClockTest {
  @Test
  void theClockMovesOnlyWhenAdvanced() {
    ManualClock clock = ManualClock.at(Instant.parse("2030-05-01T10:00:00Z"));

    assertThat(clock.instant()).isEqualTo(Instant.parse("2030-05-01T10:00:00Z"));
    assertThat(clock.advance(Duration.ofMinutes(3)).instant())
        .isEqualTo(Instant.parse("2030-05-01T10:03:00Z"));
    assertThat(ManualClock.create().instant()).isEqualTo(ManualClock.DEFAULT_START);
  }

  @Test
  void sleepAdvancesRecordsThePauseAndThenRunsTheAction() {
    ManualClock clock = ManualClock.create();
    List<Instant> seen = new ArrayList<>();
    clock.onSleep(() -> seen.add(clock.instant()));

    clock.sleep(Duration.ofSeconds(2));
    clock.sleep(Duration.ofSeconds(5));

    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(5));
    assertThat(seen)
        .containsExactly(
            Instant.parse("2025-01-01T00:00:02Z"), Instant.parse("2025-01-01T00:00:07Z"));
  }

  @Test
  void aClockCannotGoBack() {
    assertThatThrownBy(() -> ManualClock.create().advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a clock cannot go back: -1s");
  }
}
