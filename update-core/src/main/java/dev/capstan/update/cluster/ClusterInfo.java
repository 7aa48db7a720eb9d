package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/**
 * Identifies the target cluster; shown before any change and in the confirmation prompt.
 *
 * @param context the kubeconfig context, empty when unknown
 * @param server the API server URL, empty when unknown
 * @param clusterId a stable cluster id (the UID of {@code kube-system}), empty when unknown
 */
public record ClusterInfo(String context, String server, String clusterId) {
  /** Validates the fields. */
  public ClusterInfo {
    requireNonNull(context, "context");
    requireNonNull(server, "server");
    requireNonNull(clusterId, "clusterId");
  }

  /**
   * Returns the info of a cluster nothing is known about.
   *
   * @return all fields empty
   */
  public static ClusterInfo unknown() {
    return new ClusterInfo("", "", "");
  }
}
