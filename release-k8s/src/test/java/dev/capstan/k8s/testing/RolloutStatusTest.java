package dev.capstan.k8s.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.RolloutStatus.State;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RolloutStatusTest {

  @ParameterizedTest(name = "gen {0}/{1}, spec {2}, replicas {3}, updated {4}, available {5}: {7}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          2 | 1 | 2 | 2 | 2 | 2 | Progressing     | WAITING  | waiting for deployment spec update to be observed...
          2 | 2 | 2 | 2 | 1 | 1 | Progressing     | WAITING  | 1 out of 2 new replicas have been updated...
          2 | 2 | 2 | 3 | 2 | 2 | Progressing     | WAITING  | 1 old replicas are pending termination...
          2 | 2 | 2 | 2 | 2 | 1 | Progressing     | WAITING  | 1 of 2 updated replicas are available...
          2 | 2 | 2 | 2 | 2 | 2 | NewRSAvailable  | COMPLETE | successfully rolled out
          2 | 3 | 2 | 2 | 2 | 2 | NewRSAvailable  | COMPLETE | successfully rolled out
          2 | 2 | 2 | 3 | 1 | 2 | ProgressDeadlineExceeded | FAILED | exceeded its progress deadline
          """)
  void followsKubectlRolloutStatusRules(
      long generation,
      long observedGeneration,
      int specReplicas,
      int replicas,
      int updated,
      int available,
      String progressingReason,
      State state,
      String message) {
    V1Deployment deployment =
        new V1Deployment()
            .metadata(new V1ObjectMeta().name("web").generation(generation))
            .spec(new V1DeploymentSpec().replicas(specReplicas))
            .status(
                new V1DeploymentStatus()
                    .observedGeneration(observedGeneration)
                    .replicas(replicas)
                    .updatedReplicas(updated)
                    .availableReplicas(available)
                    .addConditionsItem(
                        new V1DeploymentCondition()
                            .type("Progressing")
                            .status(
                                progressingReason.equals("ProgressDeadlineExceeded")
                                    ? "False"
                                    : "True")
                            .reason(progressingReason)));

    RolloutStatus status = RolloutStatus.of(deployment);

    assertThat(status.state()).isEqualTo(state);
    assertThat(status.message()).contains(message);
  }

  @org.junit.jupiter.api.Test
  void deploymentWithoutStatusIsStillWaiting() {
    V1Deployment fresh = new V1Deployment().metadata(new V1ObjectMeta().name("web").generation(1L));

    assertThat(RolloutStatus.of(fresh).state()).isEqualTo(State.WAITING);
  }
}
