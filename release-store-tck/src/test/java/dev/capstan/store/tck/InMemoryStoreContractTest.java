package dev.capstan.store.tck;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.port.Store;

/**
 * The in-memory store, which hosts use in their tests, keeps the contract. Like a Kubernetes store
 * it keeps a release's records and lease in the release's namespace, which must exist.
 */
class InMemoryStoreContractTest extends StoreContract {
  private final InMemoryCluster cluster = InMemoryCluster.create();

  @Override
  protected String newNamespace(int index) {
    String namespace = super.newNamespace(index);
    cluster.addNamespace(namespace);
    return namespace;
  }

  @Override
  protected Store newStore() {
    return cluster;
  }
}
