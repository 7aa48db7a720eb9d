package dev.capstan.update.cluster;

import java.util.List;

/**
 * The live state the planner diffs against, read once. A Deployment missing from {@code
 * deployments} is not installed; an adapter that cannot read something throws instead of leaving it
 * out.
 *
 * @param deployments the Deployments that exist, of those asked for
 * @param pods the pods of those Deployments (others are ignored)
 * @param crds the CRDs that exist, of those asked for
 */
public record InventorySnapshot(
    List<DeploymentState> deployments, List<PodState> pods, List<CrdState> crds) {
  /** Copies the lists. */
  public InventorySnapshot {
    deployments = List.copyOf(deployments);
    pods = List.copyOf(pods);
    crds = List.copyOf(crds);
  }

  /**
   * Returns a snapshot of an empty cluster.
   *
   * @return no deployments, pods or CRDs
   */
  public static InventorySnapshot empty() {
    return new InventorySnapshot(List.of(), List.of(), List.of());
  }
}
