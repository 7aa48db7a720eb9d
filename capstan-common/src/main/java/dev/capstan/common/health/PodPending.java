package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;
import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Why a pod is not running yet for a reason that waiting may cure, named while a wait goes on and
 * when it times out: the scheduler finds no node for it ({@code PodScheduled=False} with reason
 * {@code Unschedulable}). A claim its volume provisioner has yet to bind, a node the cluster
 * autoscaler is adding, room other pods are about to free: each passes, so such a pod keeps its
 * workload in progress, as it does for {@code helm --wait}, {@code kubectl rollout status} and
 * kstatus. What waiting will not cure is a {@link PodFailure}.
 *
 * @param reason the condition's reason, {@code Unschedulable}
 * @param message the scheduler's message, e.g. {@code 0/2 nodes are available: pod has unbound
 *     immediate PersistentVolumeClaims.}; {@code ""} when none
 */
public record PodPending(String reason, String message) {
  /** Validates the fields. */
  public PodPending {
    requireNonNull(reason, "reason");
    requireNonNull(message, "message");
  }

  /**
   * Why {@code pod} waits for the scheduler: its {@code PodScheduled} condition {@code False} with
   * reason {@code Unschedulable}.
   *
   * @param pod the pod as read from the API server (nested maps and lists); only its status is read
   * @return why, or {@code null} when the scheduler is not holding it back
   */
  public static @Nullable PodPending of(Map<?, ?> pod) {
    Condition scheduled = Condition.find(Condition.of(pod), "PodScheduled");
    if (scheduled != null
        && scheduled.status().equals("False")
        && scheduled.reason().equals("Unschedulable")) {
      return new PodPending(scheduled.reason(), scheduled.message());
    }
    return null;
  }

  /**
   * Why, for people, escaped: {@code Unschedulable: message}, without an empty message.
   *
   * @return the reason, as verdicts show it after the pod's name
   */
  public String explain() {
    return escape(reason) + (message.isEmpty() ? "" : ": " + escape(message));
  }
}
