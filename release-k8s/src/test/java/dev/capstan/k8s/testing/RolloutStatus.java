package dev.capstan.k8s.testing;

import static java.util.Objects.requireNonNull;

import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentCondition;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import java.util.List;
import java.util.Objects;

/**
 * A Deployment's rollout state by the rules of {@code kubectl rollout status} (kubectl's
 * DeploymentStatusViewer), small on purpose: the production evaluator belongs in the adapter.
 *
 * @param state waiting, complete or failed
 * @param message kubectl's wording of the state
 */
public record RolloutStatus(State state, String message) {

  /** Whether the rollout is still going, done, or failed. */
  public enum State {
    /** Not finished: kubectl keeps waiting. */
    WAITING,
    /** Every replica is updated and available, and no old replica is left. */
    COMPLETE,
    /** The Progressing condition says ProgressDeadlineExceeded. */
    FAILED
  }

  /** Validates the parts. */
  public RolloutStatus {
    requireNonNull(state, "state");
    requireNonNull(message, "message");
  }

  /** Evaluates a Deployment as read from the API server. */
  public static RolloutStatus of(V1Deployment deployment) {
    String name = deployment.getMetadata() == null ? "?" : deployment.getMetadata().getName();
    long generation =
        deployment.getMetadata() == null || deployment.getMetadata().getGeneration() == null
            ? 0
            : deployment.getMetadata().getGeneration();
    V1DeploymentStatus status = deployment.getStatus();
    if (status == null
        || status.getObservedGeneration() == null
        || status.getObservedGeneration() < generation) {
      return waiting("waiting for deployment spec update to be observed...");
    }
    List<V1DeploymentCondition> conditions =
        status.getConditions() == null ? List.of() : status.getConditions();
    for (V1DeploymentCondition condition : conditions) {
      if ("Progressing".equals(condition.getType())
          && "ProgressDeadlineExceeded".equals(condition.getReason())) {
        return new RolloutStatus(
            State.FAILED, "deployment \"" + name + "\" exceeded its progress deadline");
      }
    }
    V1DeploymentSpec spec = deployment.getSpec();
    int updated = orZero(status.getUpdatedReplicas());
    Integer wanted = spec == null ? null : spec.getReplicas();
    if (wanted != null && updated < wanted) {
      return waiting(updated + " out of " + wanted + " new replicas have been updated...");
    }
    int replicas = orZero(status.getReplicas());
    if (replicas > updated) {
      return waiting((replicas - updated) + " old replicas are pending termination...");
    }
    int available = orZero(status.getAvailableReplicas());
    if (available < updated) {
      return waiting(available + " of " + updated + " updated replicas are available...");
    }
    return new RolloutStatus(State.COMPLETE, "deployment \"" + name + "\" successfully rolled out");
  }

  private static RolloutStatus waiting(String message) {
    return new RolloutStatus(State.WAITING, "Waiting for rollout to finish: " + message);
  }

  private static int orZero(Integer value) {
    return Objects.requireNonNullElse(value, 0);
  }
}
