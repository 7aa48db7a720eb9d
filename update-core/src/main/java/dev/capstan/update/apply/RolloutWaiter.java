package dev.capstan.update.apply;

import dev.capstan.common.ClusterException;
import dev.capstan.common.Sleeper;
import dev.capstan.update.UpdateException;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.cluster.RolloutProgress;
import dev.capstan.update.cluster.RolloutStatus;
import dev.capstan.update.cluster.Workload;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Waits for a Deployment rollout to complete, with {@code kubectl rollout status} semantics (see
 * {@link RolloutStatus#progress}). A Kubernetes adapter may implement it with a watch; {@link
 * #polling} works over any {@link PlatformCluster}.
 */
@FunctionalInterface
public interface RolloutWaiter {

  /**
   * Returns when the rollout has completed.
   *
   * @param workload the Deployment
   * @param timeout how long to wait at most
   * @throws UpdateException saying why the rollout did not complete: the progress deadline was
   *     exceeded, the timeout passed (with the last status seen), or the wait was interrupted
   */
  void await(Workload workload, Duration timeout);

  /**
   * Returns a waiter that polls {@link PlatformCluster#rolloutStatus}. A missing Deployment and
   * {@link ClusterException}s count as "not yet" until the timeout; {@code
   * ProgressDeadlineExceeded} fails at once.
   *
   * @param cluster the cluster
   * @param clock the time source
   * @param sleeper how to pause between polls
   * @param interval the pause between polls
   * @return the waiter
   */
  static RolloutWaiter polling(
      PlatformCluster cluster, Clock clock, Sleeper sleeper, Duration interval) {
    return (workload, timeout) -> {
      Instant deadline = clock.instant().plus(timeout);
      String last = "no status observed yet";
      while (true) {
        try {
          Optional<RolloutStatus> status = cluster.rolloutStatus(workload);
          if (status.isEmpty()) {
            last = "deployment " + workload.key() + " not found";
          } else {
            RolloutProgress progress = status.get().progress(workload.deployment());
            if (progress instanceof RolloutProgress.Done) {
              return;
            }
            if (progress instanceof RolloutProgress.Failed) {
              throw new UpdateException(progress.message());
            }
            last = progress.message();
          }
        } catch (ClusterException e) {
          last = String.valueOf(e.getMessage());
        }
        Duration left = Duration.between(clock.instant(), deadline);
        if (left.isNegative() || left.isZero()) {
          throw new UpdateException("timed out; last status: " + last);
        }
        Polling.pause(sleeper, left.compareTo(interval) < 0 ? left : interval, workload.key());
      }
    };
  }
}
