package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static Backoff seeded() {
    return new Backoff(
        Duration.ofMillis(200), Duration.ofSeconds(5), 8, Duration.ofSeconds(30), new Random(42));
  }

  @Test
  void doublesFromTheInitialStepUpToTheCapWithEqualJitterFromTheSeed() {
    Backoff backoff = seeded();
    List<Long> delays = new ArrayList<>();
    for (int retry = 1; retry <= 7; retry++) {
      delays.add(backoff.delay(retry).toMillis());
    }
    // steps 200, 400, 800, 1600, 3200, 5000 (capped), 5000; each pause in [step/2, step]
    assertThat(delays).containsExactly(102L, 306L, 660L, 1317L, 2606L, 4023L, 2610L);
  }

  @Test
  void stopsWhenTheTriesAreUsedUp() {
    Backoff backoff = seeded().withAttempts(3);
    assertThat(backoff.next(1, Duration.ZERO)).isEqualTo(Duration.ofMillis(102));
    assertThat(backoff.next(2, Duration.ofMillis(102))).isEqualTo(Duration.ofMillis(306));
    assertThat(backoff.next(3, Duration.ofMillis(408))).isNull();
  }

  @Test
  void stopsWhenTheNextPauseWouldEndPastTheBudget() {
    Backoff backoff = seeded().withBudget(Duration.ofMillis(400));
    assertThat(backoff.next(1, Duration.ZERO)).isEqualTo(Duration.ofMillis(102));
    // 102 + 306 = 408 > 400
    assertThat(backoff.next(2, Duration.ofMillis(102))).isNull();
  }

  @Test
  void refusesAStepAboveItsCap() {
    assertThatThrownBy(
            () ->
                new Backoff(
                    Duration.ofSeconds(2), Duration.ofSeconds(1), 3, Duration.ZERO, new Random()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("backoff max must be at least initial (2s): 1s");
  }
}
