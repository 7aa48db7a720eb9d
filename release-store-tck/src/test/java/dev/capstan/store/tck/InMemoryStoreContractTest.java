package dev.capstan.store.tck;

import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.port.Store;

/** The in-memory store, which hosts use in their tests, keeps the contract. */
class InMemoryStoreContractTest extends StoreContract {
  @Override
  protected Store newStore() {
    return InMemoryCluster.create();
  }
}
