package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1ContainerStateWaiting;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RolloutsTest {

  private static V1Deployment deployment(
      long generation,
      long observed,
      int wanted,
      int updated,
      int replicas,
      int available,
      V1DeploymentCondition... conditions) {
    return new V1Deployment()
        .metadata(new V1ObjectMeta().name("web").generation(generation))
        .spec(
            new V1DeploymentSpec()
                .replicas(wanted)
                .selector(new V1LabelSelector().matchLabels(Map.of("app", "web"))))
        .status(
            new V1DeploymentStatus()
                .observedGeneration(observed)
                .updatedReplicas(updated)
                .replicas(replicas)
                .availableReplicas(available)
                .conditions(List.of(conditions)));
  }

  private static V1DeploymentCondition condition(
      String type, String status, String reason, String message) {
    return new V1DeploymentCondition().type(type).status(status).reason(reason).message(message);
  }

  @Test
  void kubectlSemanticsDecideWaitingAndComplete() {
    assertThat(Rollouts.verdict(deployment(2, 1, 2, 2, 2, 2)))
        .isEqualTo(
            new Rollouts.Verdict(
                Rollouts.State.WAITING,
                "Waiting for deployment \"web\" spec update to be observed..."));
    assertThat(Rollouts.verdict(deployment(2, 2, 2, 1, 3, 1)).message())
        .isEqualTo(
            "Waiting for deployment \"web\" rollout to finish: 1 out of 2 new replicas have been updated...");
    assertThat(Rollouts.verdict(deployment(2, 2, 2, 2, 3, 2)).message())
        .isEqualTo(
            "Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination...");
    assertThat(Rollouts.verdict(deployment(2, 2, 2, 2, 2, 2)))
        .isEqualTo(
            new Rollouts.Verdict(
                Rollouts.State.COMPLETE, "deployment \"web\" successfully rolled out"));
  }

  @Test
  void aProgressDeadlineAndAReplicaFailureFail() {
    assertThat(
            Rollouts.verdict(
                deployment(
                    2,
                    2,
                    2,
                    1,
                    3,
                    2,
                    condition(
                        "Progressing",
                        "False",
                        "ProgressDeadlineExceeded",
                        "ReplicaSet \"web-1\" has timed out progressing."))))
        .isEqualTo(
            new Rollouts.Verdict(
                Rollouts.State.FAILED,
                "ProgressDeadlineExceeded: ReplicaSet \"web-1\" has timed out progressing."));
    assertThat(
            Rollouts.verdict(
                deployment(
                    2,
                    2,
                    2,
                    0,
                    0,
                    0,
                    condition(
                        "ReplicaFailure",
                        "True",
                        "FailedCreate",
                        "pods \"web-1\" is forbidden: exceeded quota"))))
        .isEqualTo(
            new Rollouts.Verdict(
                Rollouts.State.FAILED,
                "FailedCreate: pods \"web-1\" is forbidden: exceeded quota"));
    // Not yet observed: a stale failure condition belongs to the previous generation.
    assertThat(
            Rollouts.verdict(
                    deployment(
                        3,
                        2,
                        2,
                        0,
                        0,
                        0,
                        condition("ReplicaFailure", "True", "FailedCreate", "old")))
                .state())
        .isEqualTo(Rollouts.State.WAITING);
  }

  private static V1Pod pod(String waitingReason) {
    return new V1Pod()
        .metadata(new V1ObjectMeta().name("web-1").labels(Map.of("app", "web", "tier", "x")))
        .status(
            new V1PodStatus()
                .containerStatuses(
                    List.of(
                        new V1ContainerStatus()
                            .name("web")
                            .state(
                                new V1ContainerState()
                                    .waiting(
                                        new V1ContainerStateWaiting()
                                            .reason(waitingReason)
                                            .message("because"))))));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ImagePullBackOff",
        "ErrImagePull",
        "CrashLoopBackOff",
        "CreateContainerConfigError"
      })
  void containersWaitingForAReasonWaitingWillNotCureFailThePod(String reason) {
    assertThat(Rollouts.podFailure(pod(reason)))
        .isEqualTo(reason + ": pod web-1 container web: because");
  }

  @ParameterizedTest
  @ValueSource(strings = {"ContainerCreating", "PodInitializing"})
  void containersStartingAreNoFailure(String reason) {
    assertThat(Rollouts.podFailure(pod(reason))).isNull();
  }

  @Test
  void anUnschedulablePodIsWaitedForAndNamed() {
    V1Pod pod =
        new V1Pod()
            .metadata(new V1ObjectMeta().name("web-1"))
            .status(
                new V1PodStatus()
                    .conditions(
                        List.of(
                            new V1PodCondition()
                                .type("PodScheduled")
                                .status("False")
                                .reason("Unschedulable")
                                .message("0/2 nodes are available: 2 Insufficient cpu."))));

    // waiting may cure it (a node the autoscaler adds): no failure, but the reason to name
    assertThat(Rollouts.podFailure(pod)).isNull();
    assertThat(Rollouts.podPending(pod))
        .isEqualTo("Unschedulable: pod web-1: 0/2 nodes are available: 2 Insufficient cpu.");
    assertThat(Rollouts.podPending(pod("ImagePullBackOff"))).isNull();
  }

  @Test
  void onePodSelectorCoversTheDeploymentsWhenTheirSelectorsShareOneKey() {
    V1Deployment a = deployment(1, 1, 1, 1, 1, 1);
    V1Deployment b =
        deployment(1, 1, 1, 1, 1, 1)
            .spec(
                new V1DeploymentSpec()
                    .selector(new V1LabelSelector().matchLabels(Map.of("app", "api"))));
    V1Deployment c =
        deployment(1, 1, 1, 1, 1, 1)
            .spec(
                new V1DeploymentSpec()
                    .selector(new V1LabelSelector().matchLabels(Map.of("app", "x", "tier", "y"))));

    assertThat(Rollouts.podSelector(List.of(c))).isEqualTo("app=x,tier=y");
    assertThat(Rollouts.podSelector(List.of(a, b))).isEqualTo("app in (api,web)");
    assertThat(Rollouts.podSelector(List.of(a, c))).isNull();
    assertThat(Rollouts.selects(Map.of("app", "web"), pod("x"))).isTrue();
    assertThat(Rollouts.selects(Map.of("app", "api"), pod("x"))).isFalse();
    assertThat(Rollouts.selects(Map.of(), pod("x"))).isFalse();
  }
}
