package dev.capstan.k8s.smoke;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.RolloutStatus;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.util.PatchUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class DeploymentRolloutIT {

  private static final String MANAGER = "capstan-it";
  private static final String IMAGE_V1 = "registry.invalid/web:1";
  private static final String IMAGE_V2 = "registry.invalid/web:2";

  /** Only bounds a test that would otherwise hang; nothing asserts how long a rollout took. */
  private static final Duration ROLLOUT_TIMEOUT = Duration.ofMinutes(2);

  @Test
  void twoReplicaDeploymentRollsOutAndAnImagePatchRollsOutAgain(ApiClient client, TestNamespace ns)
      throws ApiException {
    V1Deployment first = awaitRollout(client, ns, apply(client, ns, IMAGE_V1, null));

    assertThat(first.getStatus().getUpdatedReplicas()).isEqualTo(2);
    assertThat(first.getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(pods(client, ns))
        .hasSize(2)
        .allSatisfy(
            pod -> {
              assertThat(pod.getSpec().getNodeName()).startsWith("kwok-node-");
              assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
              assertThat(images(pod)).containsExactly(IMAGE_V1);
            });

    V1Deployment patched = apply(client, ns, IMAGE_V2, null);
    assertThat(patched.getMetadata().getGeneration()).isEqualTo(2);
    V1Deployment second = awaitRollout(client, ns, patched);

    assertThat(second.getStatus().getObservedGeneration()).isGreaterThanOrEqualTo(2);
    assertThat(second.getStatus().getUpdatedReplicas()).isEqualTo(2);
    assertThat(second.getStatus().getAvailableReplicas()).isEqualTo(2);
    assertThat(replicaSetsByImage(client, ns))
        .containsOnlyKeys(IMAGE_V1, IMAGE_V2)
        .containsEntry(IMAGE_V1, 0)
        .containsEntry(IMAGE_V2, 2);
    List<V1Pod> pods =
        Await.until(
            "the old pods to be gone",
            ROLLOUT_TIMEOUT,
            () -> pods(client, ns),
            p -> p.stream().allMatch(pod -> images(pod).equals(List.of(IMAGE_V2))));
    assertThat(pods).hasSize(2);
  }

  @Test
  void patchToANeverReadyImageEndsInProgressDeadlineExceeded(ApiClient client, TestNamespace ns)
      throws ApiException {
    awaitRollout(client, ns, apply(client, ns, IMAGE_V1, null));

    V1Deployment patched = apply(client, ns, ControlPlane.NEVER_READY_IMAGE, 10);
    V1Deployment failed =
        Await.until(
            "deployment web to fail its rollout",
            ROLLOUT_TIMEOUT,
            () -> read(client, ns),
            d -> RolloutStatus.of(d).state() != RolloutStatus.State.WAITING);

    assertThat(RolloutStatus.of(failed))
        .isEqualTo(
            new RolloutStatus(
                RolloutStatus.State.FAILED, "deployment \"web\" exceeded its progress deadline"));
    assertThat(failed.getStatus().getObservedGeneration())
        .isGreaterThanOrEqualTo(patched.getMetadata().getGeneration());
    V1DeploymentCondition progressing = condition(failed, "Progressing");
    assertThat(progressing.getStatus()).isEqualTo("False");
    assertThat(progressing.getReason()).isEqualTo("ProgressDeadlineExceeded");
    // maxUnavailable 25% of 2 rounds down to 0: the old pods keep serving.
    assertThat(failed.getStatus().getAvailableReplicas()).isEqualTo(2);
    List<V1Pod> stuck =
        Await.until(
            "the never-ready pods to wait in ImagePullBackOff",
            ROLLOUT_TIMEOUT,
            () -> neverReadyPods(client, ns),
            p -> !p.isEmpty() && p.stream().allMatch(pod -> !waitingReasons(pod).isEmpty()));
    assertThat(stuck)
        .allSatisfy(
            pod -> {
              assertThat(pod.getStatus().getPhase()).isEqualTo("Pending");
              assertThat(waitingReasons(pod)).containsExactly("ImagePullBackOff");
            });
  }

  private static List<V1Pod> neverReadyPods(ApiClient client, TestNamespace ns)
      throws ApiException {
    return pods(client, ns).stream()
        .filter(p -> images(p).contains(ControlPlane.NEVER_READY_IMAGE))
        .toList();
  }

  private static V1Deployment apply(
      ApiClient client, TestNamespace ns, String image, @Nullable Integer progressDeadlineSeconds)
      throws ApiException {
    String yaml =
        String.join(
            "\n",
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata:",
            "  name: web",
            "  namespace: " + ns.name(),
            "spec:",
            "  replicas: 2",
            progressDeadlineSeconds == null
                ? ""
                : "  progressDeadlineSeconds: " + progressDeadlineSeconds,
            "  selector:",
            "    matchLabels: {app: web}",
            "  template:",
            "    metadata:",
            "      labels: {app: web}",
            "    spec:",
            "      containers:",
            "      - name: web",
            "        image: " + image,
            "");
    AppsV1Api apps = new AppsV1Api(client);
    return PatchUtils.patch(
        V1Deployment.class,
        () ->
            apps.patchNamespacedDeployment("web", ns.name(), new V1Patch(yaml))
                .fieldManager(MANAGER)
                .force(true)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        client);
  }

  /** Waits until kubectl's rollout-status rules say "successfully rolled out" for this change. */
  private static V1Deployment awaitRollout(
      ApiClient client, TestNamespace ns, V1Deployment applied) {
    long generation = Objects.requireNonNull(applied.getMetadata().getGeneration());
    V1Deployment done =
        Await.until(
            "deployment web (generation " + generation + ") to roll out",
            ROLLOUT_TIMEOUT,
            () -> read(client, ns),
            d -> RolloutStatus.of(d).state() != RolloutStatus.State.WAITING);
    assertThat(RolloutStatus.of(done).state()).isEqualTo(RolloutStatus.State.COMPLETE);
    assertThat(done.getStatus().getObservedGeneration()).isGreaterThanOrEqualTo(generation);
    return done;
  }

  private static V1Deployment read(ApiClient client, TestNamespace ns) throws ApiException {
    return new AppsV1Api(client).readNamespacedDeployment("web", ns.name()).execute();
  }

  private static List<V1Pod> pods(ApiClient client, TestNamespace ns) throws ApiException {
    return new CoreV1Api(client)
        .listNamespacedPod(ns.name())
        .labelSelector("app=web")
        .execute()
        .getItems();
  }

  private static Map<String, Integer> replicaSetsByImage(ApiClient client, TestNamespace ns)
      throws ApiException {
    List<V1ReplicaSet> sets =
        new AppsV1Api(client)
            .listNamespacedReplicaSet(ns.name())
            .labelSelector("app=web")
            .execute()
            .getItems();
    return sets.stream()
        .collect(
            Collectors.toMap(
                rs -> rs.getSpec().getTemplate().getSpec().getContainers().get(0).getImage(),
                rs -> Objects.requireNonNullElse(rs.getStatus().getReadyReplicas(), 0)));
  }

  private static List<String> images(V1Pod pod) {
    return pod.getSpec().getContainers().stream().map(c -> c.getImage()).toList();
  }

  private static List<String> waitingReasons(V1Pod pod) {
    List<V1ContainerStatus> statuses = pod.getStatus().getContainerStatuses();
    return statuses == null
        ? List.of()
        : statuses.stream()
            .map(
                s ->
                    s.getState() == null || s.getState().getWaiting() == null
                        ? "not waiting"
                        : String.valueOf(s.getState().getWaiting().getReason()))
            .toList();
  }

  private static V1DeploymentCondition condition(V1Deployment deployment, String type) {
    return deployment.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type + " condition on " + deployment));
  }
}
