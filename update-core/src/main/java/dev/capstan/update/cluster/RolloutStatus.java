package dev.capstan.update.cluster;

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
   * Evaluates the status the way {@code kubectl rollout status} does: once the controller has
   * observed the latest generation, a {@code Progressing} condition with reason {@code
   * ProgressDeadlineExceeded} fails the rollout; otherwise it is done when every desired replica is
   * updated, no old replica remains and every updated replica is available.
   *
   * @param name the Deployment name, for the messages
   * @return done, waiting or failed, with kubectl's message
   */
  public RolloutProgress progress(String name) {
    if (generation > observedGeneration) {
      return new RolloutProgress.Waiting(
          "Waiting for deployment \"" + name + "\" spec update to be observed...");
    }
    boolean deadline =
        conditions.stream()
            .anyMatch(
                c ->
                    c.type().equals("Progressing")
                        && c.reason().equals("ProgressDeadlineExceeded"));
    if (deadline) {
      return new RolloutProgress.Failed(
          "deployment \"" + name + "\" exceeded its progress deadline");
    }
    if (updatedReplicas < desiredReplicas) {
      return new RolloutProgress.Waiting(
          String.format(
              "Waiting for deployment \"%s\" rollout to finish: %d out of %d new replicas have been"
                  + " updated...",
              name, updatedReplicas, desiredReplicas));
    }
    if (replicas > updatedReplicas) {
      return new RolloutProgress.Waiting(
          String.format(
              "Waiting for deployment \"%s\" rollout to finish: %d old replicas are pending"
                  + " termination...",
              name, replicas - updatedReplicas));
    }
    if (availableReplicas < updatedReplicas) {
      return new RolloutProgress.Waiting(
          String.format(
              "Waiting for deployment \"%s\" rollout to finish: %d of %d updated replicas are"
                  + " available...",
              name, availableReplicas, updatedReplicas));
    }
    return new RolloutProgress.Done("deployment \"" + name + "\" successfully rolled out");
  }
}
