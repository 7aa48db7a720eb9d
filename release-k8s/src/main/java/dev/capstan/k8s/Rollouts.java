package dev.capstan.k8s;

import dev.capstan.common.health.Condition;
import dev.capstan.common.health.DeploymentRollout;
import dev.capstan.common.health.HealthRules;
import dev.capstan.common.health.PodFailure;
import dev.capstan.common.health.PodPending;
import dev.capstan.common.health.Selectors;
import dev.capstan.update.cluster.RolloutProgress;
import dev.capstan.update.cluster.RolloutStatus;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Rollout verdicts of the platform update adapter, in its wording, over the shared health rules
 * (capstan-common's {@code dev.capstan.common.health}): {@code kubectl rollout status} semantics
 * (update-core's {@link RolloutStatus#progress}, on {@link DeploymentRollout}) plus the reasons a
 * rollout can be known to fail before its progress deadline ({@link
 * DeploymentRollout#replicaFailure}, {@link PodFailure}), and why one is still waiting ({@link
 * PodPending}).
 */
final class Rollouts {
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
      Condition deadline = DeploymentRollout.deadlineExceeded(status.conditions());
      String detail =
          deadline == null || deadline.message().isEmpty()
              ? progress.message()
              : deadline.message();
      return new Verdict(State.FAILED, "ProgressDeadlineExceeded: " + detail);
    }
    if (HealthRules.generationObserved(status.generation(), status.observedGeneration())) {
      Condition c = DeploymentRollout.replicaFailure(status.conditions());
      if (c != null) {
        return new Verdict(
            State.FAILED,
            (c.reason().isEmpty() ? "ReplicaFailure" : c.reason()) + ": " + c.message());
      }
    }
    return new Verdict(State.WAITING, progress.message());
  }

  /**
   * Why a pod cannot become ready ({@link PodFailure#of}), or {@code null}, in this adapter's
   * wording: {@code Reason: pod P container C: message}.
   */
  static @Nullable String podFailure(V1Pod pod) {
    PodFailure failure =
        pod.getStatus() == null ? null : PodFailure.of(statusTree(pod.getStatus()));
    if (failure == null) {
      return null;
    }
    String message = failure.message().isEmpty() ? "" : ": " + failure.message();
    return failure.reason() + ": pod " + name(pod) + " container " + failure.container() + message;
  }

  /**
   * Why the scheduler holds a pod back ({@link PodPending#of}: waiting may cure it, so the rollout
   * goes on), or {@code null}, in this adapter's wording: {@code Unschedulable: pod P: message}.
   */
  static @Nullable String podPending(V1Pod pod) {
    PodPending pending =
        pod.getStatus() == null ? null : PodPending.of(statusTree(pod.getStatus()));
    if (pending == null) {
      return null;
    }
    String message = pending.message().isEmpty() ? "" : ": " + pending.message();
    return pending.reason() + ": pod " + name(pod) + message;
  }

  private static String name(V1Pod pod) {
    return pod.getMetadata() == null ? "?" : String.valueOf(pod.getMetadata().getName());
  }

  /**
   * The part of a pod's tree {@link PodFailure#of} and {@link PodPending#of} read: its containers'
   * waiting states and its conditions.
   */
  private static Map<String, Object> statusTree(V1PodStatus status) {
    Map<String, Object> tree = new HashMap<>();
    tree.put("initContainerStatuses", containers(status.getInitContainerStatuses()));
    tree.put("containerStatuses", containers(status.getContainerStatuses()));
    List<Map<String, Object>> conditions = new ArrayList<>();
    if (status.getConditions() != null) {
      for (V1PodCondition c : status.getConditions()) {
        Map<String, Object> condition = new HashMap<>();
        putText(condition, "type", c.getType());
        putText(condition, "status", c.getStatus());
        putText(condition, "reason", c.getReason());
        putText(condition, "message", c.getMessage());
        conditions.add(condition);
      }
    }
    tree.put("conditions", conditions);
    return Map.of("status", tree);
  }

  private static List<Map<String, Object>> containers(@Nullable List<V1ContainerStatus> statuses) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (V1ContainerStatus cs : statuses == null ? List.<V1ContainerStatus>of() : statuses) {
      Map<String, Object> waiting = new HashMap<>();
      if (cs.getState() != null && cs.getState().getWaiting() != null) {
        putText(waiting, "reason", cs.getState().getWaiting().getReason());
        putText(waiting, "message", cs.getState().getWaiting().getMessage());
      }
      out.add(Map.of("name", String.valueOf(cs.getName()), "state", Map.of("waiting", waiting)));
    }
    return out;
  }

  private static void putText(Map<String, Object> map, String key, @Nullable String value) {
    if (value != null) {
      map.put(key, value);
    }
  }

  /** Whether a pod carries every label of a selector (an empty selector matches nothing). */
  static boolean selects(Map<String, String> matchLabels, V1Pod pod) {
    return pod.getMetadata() != null
        && pod.getMetadata().getLabels() != null
        && Selectors.selects(matchLabels, pod.getMetadata().getLabels());
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
