package dev.capstan.update.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.cluster.Workload;
import java.util.List;

/**
 * What happened to one Deployment.
 *
 * @param workload the Deployment
 * @param components the catalog components it carries that the plan changes
 * @param status the outcome
 * @param error what failed; empty when nothing did
 * @param recovery manual commands that restore the images recorded before this update, computed
 *     before anything ran, each argument POSIX-shell quoted
 */
public record WorkloadResult(
    Workload workload,
    List<String> components,
    WorkloadStatus status,
    String error,
    List<String> recovery) {

  /** Validates the fields and copies the lists. */
  public WorkloadResult {
    requireNonNull(workload, "workload");
    requireNonNull(status, "status");
    requireNonNull(error, "error");
    components = List.copyOf(components);
    recovery = List.copyOf(recovery);
  }

  /**
   * Creates the result of a workload nothing has happened to yet.
   *
   * @param workload the Deployment
   * @param components the components the plan changes on it
   * @param recovery the recovery commands
   * @return a {@code not-attempted} result
   */
  public static WorkloadResult notAttempted(
      Workload workload, List<String> components, List<String> recovery) {
    return new WorkloadResult(workload, components, WorkloadStatus.NOT_ATTEMPTED, "", recovery);
  }

  /**
   * Returns a copy with another status, keeping the error.
   *
   * @param newStatus the status
   * @return the copy
   */
  public WorkloadResult with(WorkloadStatus newStatus) {
    return new WorkloadResult(workload, components, newStatus, error, recovery);
  }

  /**
   * Returns a copy with another status and error.
   *
   * @param newStatus the status
   * @param newError the error
   * @return the copy
   */
  public WorkloadResult with(WorkloadStatus newStatus, String newError) {
    return new WorkloadResult(workload, components, newStatus, newError, recovery);
  }
}
