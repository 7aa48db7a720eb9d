package dev.capstan.k8s;

import dev.capstan.update.cluster.Condition;
import dev.capstan.update.cluster.RolloutProgress;
import dev.capstan.update.cluster.RolloutStatus;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Rollout verdicts, pure functions of what the API server reports: {@code kubectl rollout status}
 * semantics (update-core's {@link RolloutStatus#progress}) plus the reasons a rollout can be known
 * to fail before its progress deadline.
 */
final class Rollouts {
  /** Container waiting reasons that waiting will not cure. */
  static final Set<String> BAD_WAITING_REASONS =
      Set.of(
          "ImagePullBackOff",
          "ErrImagePull",
          "CrashLoopBackOff",
          "InvalidImageName",
          "CreateContainerConfigError",
          "CreateContainerError");

  /** The annotation holding a Deployment's (and its ReplicaSets') revision. */
  static final String REVISION = "deployment.kubernetes.io/revision";

  /** The label tying a pod to its ReplicaSet's template. */
  static final String TEMPLATE_HASH = "pod-template-hash";

  private Rollouts() {}

  /** Where a rollout stands. */
  enum State {
    /** Still going. */
    WAITING,
    /** Every replica updated and available. */
    COMPLETE,
    /** It will not complete by waiting. */
    FAILED
  }

  /**
   * A verdict with its message: kubectl's wording while waiting or when complete, {@code Reason:
   * message} when failed.
   */
  record Verdict(State state, String message) {}

  /** The rollout-relevant status of a Deployment, as update-core models it. */
  static RolloutStatus status(V1Deployment d) {
    V1DeploymentStatus s = d.getStatus();
    long generation =
        d.getMetadata() == null || d.getMetadata().getGeneration() == null
            ? 0
            : d.getMetadata().getGeneration();
    List<Condition> conditions = new ArrayList<>();
    if (s != null && s.getConditions() != null) {
      for (V1DeploymentCondition c : s.getConditions()) {
        conditions.add(
            new Condition(
                String.valueOf(c.getType()),
                String.valueOf(c.getStatus()),
                c.getReason() == null ? "" : c.getReason(),
                c.getMessage() == null ? "" : c.getMessage()));
      }
    }
    return new RolloutStatus(
        generation,
        s == null || s.getObservedGeneration() == null ? 0 : s.getObservedGeneration(),
        d.getSpec() == null || d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas(),
        s == null ? 0 : orZero(s.getReplicas()),
        s == null ? 0 : orZero(s.getUpdatedReplicas()),
        s == null ? 0 : orZero(s.getAvailableReplicas()),
        conditions);
  }

  /**
   * The Deployment's verdict: kubectl's, except that a {@code ReplicaFailure} condition (pods that
   * cannot be created, e.g. {@code FailedCreate} over a quota) fails at once.
   */
  static Verdict verdict(V1Deployment d) {
    String name = d.getMetadata() == null ? "" : String.valueOf(d.getMetadata().getName());
    RolloutStatus status = status(d);
    RolloutProgress progress = status.progress(name);
    if (progress instanceof RolloutProgress.Done) {
      return new Verdict(State.COMPLETE, progress.message());
    }
    if (progress instanceof RolloutProgress.Failed) {
      String detail =
          status.conditions().stream()
              .filter(c -> c.type().equals("Progressing"))
              .map(Condition::message)
              .filter(m -> !m.isEmpty())
              .findFirst()
              .orElse(progress.message());
      return new Verdict(State.FAILED, "ProgressDeadlineExceeded: " + detail);
    }
    if (status.observedGeneration() >= status.generation()) {
      for (Condition c : status.conditions()) {
        if (c.type().equals("ReplicaFailure") && c.holds()) {
          return new Verdict(
              State.FAILED,
              (c.reason().isEmpty() ? "ReplicaFailure" : c.reason()) + ": " + c.message());
        }
      }
    }
    return new Verdict(State.WAITING, progress.message());
  }

  /**
   * Why a pod cannot become ready, or {@code null}: a container waiting for a reason in {@link
   * #BAD_WAITING_REASONS}, or the pod unschedulable.
   */
  static @Nullable String podFailure(V1Pod pod) {
    String name = pod.getMetadata() == null ? "?" : pod.getMetadata().getName();
    if (pod.getStatus() == null) {
      return null;
    }
    List<V1ContainerStatus> statuses = new ArrayList<>();
    if (pod.getStatus().getInitContainerStatuses() != null) {
      statuses.addAll(pod.getStatus().getInitContainerStatuses());
    }
    if (pod.getStatus().getContainerStatuses() != null) {
      statuses.addAll(pod.getStatus().getContainerStatuses());
    }
    for (V1ContainerStatus cs : statuses) {
      if (cs.getState() != null && cs.getState().getWaiting() != null) {
        String reason = cs.getState().getWaiting().getReason();
        if (reason != null && BAD_WAITING_REASONS.contains(reason)) {
          String message = cs.getState().getWaiting().getMessage();
          return reason
              + ": pod "
              + name
              + " container "
              + cs.getName()
              + (message == null || message.isEmpty() ? "" : ": " + message);
        }
      }
    }
    List<V1PodCondition> conditions =
        pod.getStatus().getConditions() == null ? List.of() : pod.getStatus().getConditions();
    for (V1PodCondition c : conditions) {
      if ("PodScheduled".equals(c.getType())
          && "False".equals(c.getStatus())
          && "Unschedulable".equals(c.getReason())) {
        return "Unschedulable: pod "
            + name
            + (c.getMessage() == null || c.getMessage().isEmpty() ? "" : ": " + c.getMessage());
      }
    }
    return null;
  }

  /** Whether a pod carries every label of a selector (an empty selector matches nothing). */
  static boolean selects(Map<String, String> matchLabels, V1Pod pod) {
    if (matchLabels.isEmpty()
        || pod.getMetadata() == null
        || pod.getMetadata().getLabels() == null) {
      return false;
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    return matchLabels.entrySet().stream()
        .allMatch(e -> Objects.equals(labels.get(e.getKey()), e.getValue()));
  }

  /** A Deployment's {@code spec.selector.matchLabels}, empty when it has none. */
  static Map<String, String> matchLabels(V1Deployment d) {
    if (d.getSpec() == null
        || d.getSpec().getSelector() == null
        || d.getSpec().getSelector().getMatchLabels() == null) {
      return Map.of();
    }
    return d.getSpec().getSelector().getMatchLabels();
  }

  /**
   * One label selector for the pods of several Deployments: the one Deployment's labels, or {@code
   * key in (...)} when every selector is one label with the same key; otherwise {@code null} (every
   * pod of the namespace).
   */
  static @Nullable String podSelector(List<V1Deployment> deployments) {
    if (deployments.isEmpty()) {
      return null;
    }
    if (deployments.size() == 1) {
      Map<String, String> labels = matchLabels(deployments.get(0));
      return labels.isEmpty()
          ? null
          : labels.entrySet().stream()
              .sorted(Map.Entry.comparingByKey())
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(","));
    }
    String key = null;
    List<String> values = new ArrayList<>();
    for (V1Deployment d : deployments) {
      Map<String, String> labels = matchLabels(d);
      if (labels.size() != 1) {
        return null;
      }
      Map.Entry<String, String> only = labels.entrySet().iterator().next();
      if (key != null && !key.equals(only.getKey())) {
        return null;
      }
      key = only.getKey();
      values.add(only.getValue());
    }
    return key
        + " in ("
        + values.stream().sorted().distinct().collect(Collectors.joining(","))
        + ")";
  }

  private static int orZero(@Nullable Integer value) {
    return value == null ? 0 : value;
  }
}
