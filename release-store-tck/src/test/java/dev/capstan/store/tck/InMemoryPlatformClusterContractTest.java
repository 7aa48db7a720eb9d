package dev.capstan.store.tck;

import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.memory.InMemoryPlatformCluster;

/**
 * The in-memory platform cluster, which hosts use in their tests, keeps the platform cluster's
 * contract: the Deployment is put with one simulated ready pod.
 */
class InMemoryPlatformClusterContractTest extends PlatformClusterContract {
  @Override
  protected PlatformCluster newCluster(DeploymentState installed) {
    return InMemoryPlatformCluster.create().putDeployment(installed, 1);
  }
}
