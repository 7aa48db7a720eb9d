package dev.capstan.update.result;

import dev.capstan.update.plan.CrdResult;
import java.util.List;

/**
 * The outcome of applying a plan. JSON field names: {@code crds}, {@code workloads}, {@code
 * failed}.
 *
 * @param crds what happened to each CRD, in order
 * @param workloads what happened to each workload the plan changes, in rollout order
 * @param failed whether a CRD or a workload failed
 */
public record UpdateResult(List<CrdResult> crds, List<WorkloadResult> workloads, boolean failed) {

  /** Copies the lists. */
  public UpdateResult {
    crds = List.copyOf(crds);
    workloads = List.copyOf(workloads);
  }

  /**
   * Returns the workloads with a given status.
   *
   * @param status the status
   * @return those workloads, in rollout order
   */
  public List<WorkloadResult> withStatus(WorkloadStatus status) {
    return workloads.stream().filter(w -> w.status() == status).toList();
  }
}
