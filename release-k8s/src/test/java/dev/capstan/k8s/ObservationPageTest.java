package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The LIST page an observation asks for: the usual page for a release's few names, room for twice
 * the names when many are observed together (a fleet's 600 ConfigMaps in one namespace come in one
 * page, not two), and a bound.
 */
class ObservationPageTest {
  @Test
  void aPageHasRoomForTwiceTheNamesWithinItsBounds() {
    assertThat(Observations.observationPage(1)).isEqualTo(500);
    assertThat(Observations.observationPage(250)).isEqualTo(500);
    assertThat(Observations.observationPage(600)).isEqualTo(1200);
    assertThat(Observations.observationPage(2500)).isEqualTo(5000);
    assertThat(Observations.observationPage(100_000)).isEqualTo(5000);
  }
}
