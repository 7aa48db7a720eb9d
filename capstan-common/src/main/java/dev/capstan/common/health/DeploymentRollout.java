package dev.capstan.common.health;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A Deployment's rollout, as {@code kubectl rollout status} judges it, in the steps that both a
 * release's health verdict ({@link HealthRules}) and a platform update's rollout wait take, each in
 * its own order and wording around them:
 *
 * <ol>
 *   <li>{@link HealthRules#generationObserved}: the controller has seen the latest spec;
 *   <li>{@link #deadlineExceeded}: the {@code Progressing} condition with reason {@code
 *       ProgressDeadlineExceeded} fails the rollout;
 *   <li>{@link #replicaFailure}: {@code ReplicaFailure=True} (pods that cannot be created, e.g.
 *       over a quota) fails it too;
 *   <li>{@link #pending}: what the replica counts still wait for, nothing once every desired
 *       replica is updated, no old one is left and every updated one is available.
 * </ol>
 */
public final class DeploymentRollout {
  private DeploymentRollout() {}

  /**
   * The {@code Progressing} condition when its reason is {@code ProgressDeadlineExceeded}: the
   * rollout made no progress for {@code spec.progressDeadlineSeconds} and will not complete by
   * waiting.
   *
   * @param conditions the Deployment's conditions
   * @return that condition, or {@code null} when the deadline is not exceeded
   */
  public static @Nullable Condition deadlineExceeded(List<Condition> conditions) {
    Condition progressing = Condition.find(conditions, "Progressing");
    return progressing != null && progressing.reason().equals("ProgressDeadlineExceeded")
        ? progressing
        : null;
  }

  /**
   * The {@code ReplicaFailure} condition when it is {@code True}: the controller cannot create pods
   * (e.g. {@code FailedCreate} over a quota). A ReplicaSet reports it as its Deployment does.
   *
   * @param conditions the Deployment's (or ReplicaSet's) conditions
   * @return that condition, or {@code null} when there is no replica failure
   */
  public static @Nullable Condition replicaFailure(List<Condition> conditions) {
    Condition c = Condition.find(conditions, "ReplicaFailure");
    return c != null && c.holds() ? c : null;
  }

  /**
   * What the rollout still waits for, in kubectl's words: {@code U out of D new replicas have been
   * updated} while fewer than the desired replicas are updated, then {@code N old replicas are
   * pending termination} while more replicas than updated ones exist, then {@code A of U updated
   * replicas are available}.
   *
   * @param desired {@code spec.replicas} (1 when unset)
   * @param replicas {@code status.replicas}
   * @param updated {@code status.updatedReplicas}
   * @param available {@code status.availableReplicas}
   * @return what it waits for, or {@code null} when the counts say the rollout is complete
   */
  public static @Nullable String pending(
      long desired, long replicas, long updated, long available) {
    if (updated < desired) {
      return updated + " out of " + desired + " new replicas have been updated";
    }
    if (replicas > updated) {
      return (replicas - updated) + " old replicas are pending termination";
    }
    if (available < updated) {
      return available + " of " + updated + " updated replicas are available";
    }
    return null;
  }
}
