package dev.capstan.update.cluster;

import dev.capstan.common.health.Condition;
import dev.capstan.common.health.DeploymentRollout;
import dev.capstan.common.health.HealthRules;
import java.util.List;

/**
 * A Deployment's rollout-relevant status.
 *
 * @param generation {@code metadata.generation}
 * @param observedGeneration {@code status.observedGeneration}
 * @param desiredReplicas {@code spec.replicas} (1 when unset)
 * @param replicas {@code status.replicas}
 * @param updatedReplicas {@code status.updatedReplicas}
 * @param availableReplicas {@code status.availableReplicas}
 * @param conditions {@code status.conditions}
 */
public record RolloutStatus(
    long generation,
    long observedGeneration,
    int desiredReplicas,
    int replicas,
    int updatedReplicas,
    int availableReplicas,
    List<Condition> conditions) {

  /** Copies the conditions. */
  public RolloutStatus {
    conditions = List.copyOf(conditions);
  }

  /**
   * Evaluates the status the way {@code kubectl rollout status} does, with the shared rules of
   * {@link DeploymentRollout}: once the controller has observed the latest generation ({@link
   * HealthRules#generationObserved}), a {@code Progressing} condition with reason {@code
   * ProgressDeadlineExceeded} fails the rollout; otherwise it is done when every desired replica is
   * updated, no old replica remains and every updated replica is available.
   *
   * @param name the Deployment name, for the messages
   * @return done, waiting or failed, with kubectl's message
   */
  public RolloutProgress progress(String name) {
    if (!HealthRules.generationObserved(generation, observedGeneration)) {
      return new RolloutProgress.Waiting(
          "Waiting for deployment \"" + name + "\" spec update to be observed...");
    }
    if (DeploymentRollout.deadlineExceeded(conditions) != null) {
      return new RolloutProgress.Failed(
          "deployment \"" + name + "\" exceeded its progress deadline");
    }
    String pending =
        DeploymentRollout.pending(desiredReplicas, replicas, updatedReplicas, availableReplicas);
    if (pending != null) {
      return new RolloutProgress.Waiting(
          "Waiting for deployment \"" + name + "\" rollout to finish: " + pending + "...");
    }
    return new RolloutProgress.Done("deployment \"" + name + "\" successfully rolled out");
  }
}
