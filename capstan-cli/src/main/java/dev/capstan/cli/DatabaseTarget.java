package dev.capstan.cli;

import dev.capstan.jdbc.JdbcStore;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.cluster.PlatformCluster;
import org.jspecify.annotations.Nullable;

/**
 * A Kubernetes cluster for the objects and a SQL database ({@code --store jdbc:...}) for the
 * release records and leases: nothing of a release's state is written to the cluster.
 */
final class DatabaseTarget implements Target {
  private final Target cluster;
  private final JdbcStore store;
  private final String url;

  /**
   * @param cluster where objects go
   * @param store where records and leases go
   * @param url the store's URL, passwords hidden
   */
  DatabaseTarget(Target cluster, JdbcStore store, String url) {
    this.cluster = cluster;
    this.store = store;
    this.url = url;
  }

  @Override
  public Orchestrator orchestrator() {
    return cluster.orchestrator();
  }

  @Override
  public Store store() {
    return store;
  }

  @Override
  public PlatformCluster platform() {
    return cluster.platform();
  }

  @Override
  public @Nullable RolloutWaiter rolloutWaiter() {
    return cluster.rolloutWaiter();
  }

  @Override
  public @Nullable KubernetesTarget kubernetes() {
    return cluster.kubernetes();
  }

  @Override
  public String defaultNamespace() {
    return cluster.defaultNamespace();
  }

  @Override
  public String describe() {
    return cluster.describe() + ", release records in " + url;
  }

  @Override
  public void close() {
    cluster.close();
  }
}
