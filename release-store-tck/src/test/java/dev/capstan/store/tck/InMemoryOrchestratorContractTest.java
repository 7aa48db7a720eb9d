package dev.capstan.store.tck;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.port.Orchestrator;

/**
 * The in-memory cluster, which hosts use in their tests, keeps the orchestrator's contract. Its
 * namespaces are made as an administrator would ({@link InMemoryCluster#addNamespace}), and the
 * contract's never-ready image is marked never ready, as a real cluster fails to pull it.
 */
class InMemoryOrchestratorContractTest extends OrchestratorContract {
  private final InMemoryCluster cluster =
      InMemoryCluster.create().neverReady(NEVER_READY_IMAGE, "ImagePullBackOff: cannot pull");

  @Override
  protected String newNamespace() {
    String namespace = super.newNamespace();
    cluster.addNamespace(namespace);
    return namespace;
  }

  @Override
  protected Orchestrator newOrchestrator() {
    return cluster;
  }
}
