package dev.capstan.update.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.health.Condition;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code kubectl rollout status} semantics. */
class RolloutStatusTest {

  @Test
  void unobservedGenerationIsWaiting() {
    assertThat(status(3, 2, 2, 2, 2, 2).progress("web"))
        .isEqualTo(
            new RolloutProgress.Waiting(
                "Waiting for deployment \"web\" spec update to be observed..."));
  }

  @Test
  void progressDeadlineExceededFails() {
    RolloutStatus stuck =
        new RolloutStatus(
            2,
            2,
            2,
            3,
            1,
            2,
            List.of(Condition.isFalse("Progressing", "ProgressDeadlineExceeded", "timed out")));

    assertThat(stuck.progress("web"))
        .isEqualTo(new RolloutProgress.Failed("deployment \"web\" exceeded its progress deadline"));
  }

  @Test
  void waitsForUpdatedThenOldThenAvailableReplicas() {
    assertThat(status(2, 2, 3, 3, 1, 1).progress("web").message())
        .isEqualTo(
            "Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been"
                + " updated...");
    assertThat(status(2, 2, 3, 4, 3, 3).progress("web").message())
        .isEqualTo(
            "Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending"
                + " termination...");
    assertThat(status(2, 2, 3, 3, 3, 2).progress("web").message())
        .isEqualTo(
            "Waiting for deployment \"web\" rollout to finish: 2 of 3 updated replicas are"
                + " available...");
    assertThat(status(2, 2, 3, 3, 3, 3).progress("web"))
        .isEqualTo(new RolloutProgress.Done("deployment \"web\" successfully rolled out"));
  }

  private static RolloutStatus status(
      long generation, long observed, int desired, int replicas, int updated, int available) {
    return new RolloutStatus(
        generation,
        observed,
        desired,
        replicas,
        updated,
        available,
        List.of(new Condition("Progressing", "True", "ReplicaSetUpdated", "")));
  }
}
