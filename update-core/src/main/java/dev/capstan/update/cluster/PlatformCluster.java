package dev.capstan.update.cluster;

import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The update engine's only way to a cluster. Implementations translate their client's failures into
 * {@link dev.capstan.common.ClusterException} (naming the call and the object); "not found" is an
 * empty result, never an exception, and any other failure is an exception, never "not found".
 *
 * <p>Implementations: {@code KubernetesPlatformCluster} in {@code release-k8s}, and {@link
 * dev.capstan.update.memory.InMemoryPlatformCluster} for tests.
 */
public interface PlatformCluster {

  /**
   * Identifies the cluster.
   *
   * @return context, API server and cluster id, as far as known
   */
  ClusterInfo info();

  /**
   * Reads everything planning needs, in as few calls as the implementation can manage.
   *
   * @param query which Deployments (and their pods) and which CRDs
   * @return the Deployments and CRDs that exist, and the pods of those Deployments; each CRD with
   *     its {@code status.storedVersions} and, when the query has its document, the spec applying
   *     that document would give ({@link CrdState#dryRunSpec()}: a server-side dry run, or the API
   *     server's defaulting), with nothing written
   */
  InventorySnapshot inventory(InventoryQuery query);

  /**
   * Reads one Deployment.
   *
   * @param workload the Deployment
   * @return its state, or empty when it does not exist
   */
  Optional<DeploymentState> deployment(Workload workload);

  /**
   * Patches a Deployment (strategic merge; see {@link DeploymentPatch}).
   *
   * @param patch the patch
   */
  void patch(DeploymentPatch patch);

  /**
   * Reads a Deployment's rollout status.
   *
   * @param workload the Deployment
   * @return its status, or empty when it does not exist
   */
  Optional<RolloutStatus> rolloutStatus(Workload workload);

  /**
   * Reads a CustomResourceDefinition.
   *
   * @param name its {@code metadata.name}
   * @return its spec and conditions, or empty when it does not exist
   */
  Optional<CrdState> crd(String name);

  /**
   * Creates or updates a CustomResourceDefinition. Versions the live CRD lists in {@code
   * status.storedVersions} that the document no longer declares are dropped from the stored
   * versions (the API server refuses the update otherwise); the planner's CRD gate lets such a
   * document through only with {@code allowUnsafeCrdChanges}.
   *
   * @param name its {@code metadata.name}
   * @param document the whole CRD document as a plain tree
   * @return what the cluster did, for example {@code created} or {@code configured}
   */
  String applyCrd(String name, Map<String, @Nullable Object> document);
}
