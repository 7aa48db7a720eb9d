package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;

import dev.capstan.common.Escapes;
import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The rules of the kinds whose status needs more than the generic reading; each runs after the
 * generic checks of {@link HealthRules#of} (deletion, observed generation, Stalled, Reconciling).
 * The workload rules follow {@code kubectl rollout status}, with its wording.
 */
final class KindRules {
  /** The label tying a StatefulSet's (or DaemonSet's) pod to its controller revision. */
  private static final String REVISION_LABEL = "controller-revision-hash";

  private KindRules() {}

  /**
   * kubectl's Deployment rollout: the progress deadline exceeded or a replica failure (pods that
   * cannot be created, e.g. over a quota) fails; otherwise current when every desired replica is
   * updated, no old replica is left and every updated replica is available.
   */
  static Health deployment(Subject s, List<Condition> conditions, List<? extends Map<?, ?>> pods) {
    Health unobserved = unobserved(s);
    if (unobserved != null) {
      return unobserved;
    }
    Condition deadline = DeploymentRollout.deadlineExceeded(conditions);
    if (deadline != null) {
      return s.failed(deadline.explain("ProgressDeadlineExceeded"));
    }
    Health failure = replicaFailure(s, conditions);
    if (failure != null) {
      return failure;
    }
    String pending =
        DeploymentRollout.pending(
            s.number(1, "spec", "replicas"),
            s.number(0, "status", "replicas"),
            s.number(0, "status", "updatedReplicas"),
            s.number(0, "status", "availableReplicas"));
    Health progress = pending == null ? Health.current() : s.inProgress(pending);
    return diagnosed(s, progress, pods);
  }

  /**
   * A StatefulSet: every desired pod ready and no extra pod left; then, with {@code OnDelete},
   * current (its pods are replaced by hand); with a rolling update partitioned at {@code p}, the
   * pods at ordinals {@code >= p} updated; without a partition, every pod updated and the current
   * revision equal to the update revision. Pods of another revision than {@code
   * status.updateRevision} are not diagnosed.
   */
  static Health statefulSet(Subject s, List<? extends Map<?, ?>> pods) {
    Health unobserved = unobserved(s);
    if (unobserved != null) {
      return unobserved;
    }
    long desired = s.number(1, "spec", "replicas");
    long replicas = s.number(0, "status", "replicas");
    long ready = s.number(0, "status", "readyReplicas");
    long updated = s.number(0, "status", "updatedReplicas");
    String updateRevision = s.string("status", "updateRevision");
    String currentRevision = s.string("status", "currentRevision");
    long partition = s.number(0, "spec", "updateStrategy", "rollingUpdate", "partition");
    Health progress;
    if (ready < desired) {
      progress = s.inProgress(ready + " of " + desired + " pods are ready");
    } else if (replicas > desired) {
      progress = s.inProgress((replicas - desired) + " pods are pending termination");
    } else if (s.string("spec", "updateStrategy", "type").equals("OnDelete")) {
      progress = Health.current();
    } else if (partition > 0) {
      long target = Math.max(0, desired - partition);
      progress =
          updated < target
              ? s.inProgress(
                  updated
                      + " out of "
                      + target
                      + " new pods have been updated (partition "
                      + partition
                      + ": ordinals >= "
                      + partition
                      + ")")
              : Health.current();
    } else if (updated < desired) {
      progress = s.inProgress(updated + " out of " + desired + " new pods have been updated");
    } else if (!currentRevision.equals(updateRevision)) {
      progress =
          s.inProgress(
              "rolling update to revision " + escape(updateRevision) + " not yet complete");
    } else {
      progress = Health.current();
    }
    List<Map<?, ?>> current = new ArrayList<>();
    for (Map<?, ?> pod : pods) {
      String revision = Trees.text(pod, "metadata", "labels", REVISION_LABEL);
      if (updateRevision.isEmpty() || revision.isEmpty() || revision.equals(updateRevision)) {
        current.add(pod);
      }
    }
    return diagnosed(s, progress, current);
  }

  /**
   * kubectl's DaemonSet rollout: every node's pod updated and available; with {@code OnDelete},
   * every node's pod available.
   */
  static Health daemonSet(Subject s, List<? extends Map<?, ?>> pods) {
    Health unobserved = unobserved(s);
    if (unobserved != null) {
      return unobserved;
    }
    long desired = s.number(-1, "status", "desiredNumberScheduled");
    long updated = s.number(0, "status", "updatedNumberScheduled");
    long available = s.number(0, "status", "numberAvailable");
    boolean onDelete = s.string("spec", "updateStrategy", "type").equals("OnDelete");
    Health progress;
    if (desired < 0) {
      progress = s.inProgress("desired number of pods not yet computed");
    } else if (!onDelete && updated < desired) {
      progress = s.inProgress(updated + " out of " + desired + " new pods have been updated");
    } else if (available < desired) {
      progress =
          s.inProgress(
              available
                  + " of "
                  + desired
                  + (onDelete ? " pods" : " updated pods")
                  + " are available");
    } else {
      progress = Health.current();
    }
    return diagnosed(s, progress, pods);
  }

  /**
   * A ReplicaSet: a replica failure (pods that cannot be created) fails; otherwise current when
   * every desired replica is available and no extra one is left.
   */
  static Health replicaSet(Subject s, List<Condition> conditions, List<? extends Map<?, ?>> pods) {
    Health unobserved = unobserved(s);
    if (unobserved != null) {
      return unobserved;
    }
    Health failure = replicaFailure(s, conditions);
    if (failure != null) {
      return failure;
    }
    long desired = s.number(1, "spec", "replicas");
    long replicas = s.number(0, "status", "replicas");
    long available = s.number(0, "status", "availableReplicas");
    Health progress;
    if (available < desired) {
      progress = s.inProgress(available + " of " + desired + " replicas are available");
    } else if (replicas > desired) {
      progress = s.inProgress((replicas - desired) + " replicas are pending termination");
    } else {
      progress = Health.current();
    }
    return diagnosed(s, progress, pods);
  }

  /**
   * A Job: current once {@code Complete} (or {@code SuccessCriteriaMet}) is true or it is suspended
   * on purpose; failed once {@code Failed} (or {@code FailureTarget}) is true; in progress
   * otherwise, so a release waits for it to finish.
   */
  static Health job(Subject s, List<Condition> conditions, List<? extends Map<?, ?>> pods) {
    for (String type : List.of("Failed", "FailureTarget")) {
      Condition c = Condition.find(conditions, type);
      if (c != null && c.holds()) {
        return s.failed(c.explain(type));
      }
    }
    if (Condition.has(conditions, "Complete", "True")
        || Condition.has(conditions, "SuccessCriteriaMet", "True")) {
      return Health.current();
    }
    if (Condition.has(conditions, "Suspended", "True")
        && Boolean.TRUE.equals(Trees.at(s.tree(), "spec", "suspend"))) {
      return Health.current();
    }
    Long completions = Trees.number(s.tree(), "spec", "completions");
    long succeeded = s.number(0, "status", "succeeded");
    String done =
        completions == null
            ? succeeded + " succeeded"
            : succeeded + " of " + completions + " completions succeeded";
    String detail =
        done
            + ", "
            + s.number(0, "status", "active")
            + " active, "
            + s.number(0, "status", "failed")
            + " failed";
    return diagnosed(s, s.inProgress(detail), pods);
  }

  /**
   * A Pod: current once Succeeded or Ready; failed in phase Failed or when it cannot become ready
   * (crash loop, image pull, bad container config); in progress otherwise, naming the scheduler's
   * reason while it finds no node for the pod.
   */
  static Health pod(Subject s, List<Condition> conditions) {
    String phase = s.string("status", "phase");
    if (phase.equals("Succeeded")) {
      return Health.current();
    }
    if (phase.equals("Failed")) {
      String detail =
          Stream.of(s.string("status", "reason"), s.string("status", "message"))
              .filter(part -> !part.isEmpty())
              .map(Escapes::escape)
              .collect(Collectors.joining(": "));
      return s.failed(detail.isEmpty() ? "phase Failed" : "phase Failed: " + detail);
    }
    Condition ready = Condition.find(conditions, "Ready");
    if (ready != null && ready.holds()) {
      return Health.current();
    }
    PodFailure failure = PodFailure.of(s.tree());
    if (failure != null) {
      return s.failed(failure.explain());
    }
    PodPending pending = PodPending.of(s.tree());
    if (pending != null) {
      return s.inProgress(pending.explain());
    }
    if (phase.isEmpty()) {
      return s.inProgress("phase not yet reported");
    }
    return s.inProgress("phase " + escape(phase) + (ready == null ? "" : ": " + ready.describe()));
  }

  /**
   * A PersistentVolumeClaim: current once Bound, or while Pending when its class binds on first
   * consumer; failed when Lost (its volume is gone); in progress otherwise.
   */
  static Health claim(Subject s, HealthRules.VolumeBinding binding) {
    String phase = s.string("status", "phase");
    if (phase.equals("Bound")) {
      return Health.current();
    }
    if (phase.equals("Lost")) {
      return s.failed("phase Lost: its bound volume no longer exists");
    }
    if (binding == HealthRules.VolumeBinding.WAIT_FOR_FIRST_CONSUMER
        && (phase.isEmpty() || phase.equals("Pending"))) {
      return Health.current();
    }
    return s.inProgress(
        "not yet bound (phase " + (phase.isEmpty() ? "not reported" : escape(phase)) + ")");
  }

  /**
   * A Service: of type LoadBalancer, with {@code waitForLoadBalancer}, current once it has an
   * ingress address; otherwise current.
   */
  static Health service(Subject s, boolean waitForLoadBalancer) {
    if (waitForLoadBalancer
        && s.string("spec", "type").equals("LoadBalancer")
        && Trees.maps(s.tree(), "status", "loadBalancer", "ingress").isEmpty()) {
      return s.inProgress("type LoadBalancer has no address yet (status.loadBalancer.ingress)");
    }
    return Health.current();
  }

  /**
   * An APIService: current once {@code Available} is true; in progress before the aggregator has
   * checked it (no condition) and while it is not available, naming the condition's reason and
   * message ({@code FailedDiscoveryCheck}, {@code MissingEndpoints}, {@code ServiceNotFound}...).
   * Whether a condition that stays unchanged fails is release-core's {@code WaveHealth}'s to say.
   */
  static Health apiService(Subject s, List<Condition> conditions) {
    Condition available = Condition.find(conditions, "Available");
    if (available == null) {
      return s.inProgress("availability not yet checked (no Available condition)");
    }
    return available.holds() ? Health.current() : s.inProgress(available.describe());
  }

  /**
   * A CustomResourceDefinition: failed when its names are not accepted (they clash with another
   * CRD's); current once Established and NamesAccepted are both true; in progress otherwise.
   */
  static Health customResourceDefinition(Subject s, List<Condition> conditions) {
    Condition names = Condition.find(conditions, "NamesAccepted");
    if (names != null && names.status().equals("False")) {
      return s.failed(names.explain("NamesNotAccepted"));
    }
    Condition established = Condition.find(conditions, "Established");
    if (established == null || !established.holds()) {
      return s.inProgress(
          "not yet established" + (established == null ? "" : ": " + established.describe()));
    }
    if (names == null || !names.holds()) {
      return s.inProgress(
          "names not yet accepted" + (names == null ? "" : ": " + names.describe()));
    }
    return Health.current();
  }

  /** In progress while a workload's controller has not reported any observed generation. */
  private static @Nullable Health unobserved(Subject s) {
    if (Trees.number(s.tree(), "status", "observedGeneration") != null) {
      return null;
    }
    return s.inProgress("not yet observed by its controller");
  }

  private static @Nullable Health replicaFailure(Subject s, List<Condition> conditions) {
    Condition c = DeploymentRollout.replicaFailure(conditions);
    return c == null ? null : s.failed(c.explain("ReplicaFailure"));
  }

  /**
   * {@code progress}, or, while it is in progress, failed when one of the pods cannot get ready, or
   * still in progress with the reason the scheduler holds one back ({@code ...; pod P:
   * Unschedulable: message}).
   */
  private static Health diagnosed(Subject s, Health progress, List<? extends Map<?, ?>> pods) {
    if (!(progress instanceof Health.InProgress p)) {
      return progress;
    }
    String failure = PodDiagnosis.firstFailure(pods);
    if (failure != null) {
      return s.failed(failure);
    }
    String pending = PodDiagnosis.firstPending(pods);
    return pending == null ? progress : Health.inProgress(p.reason() + "; " + pending);
  }
}
