package dev.capstan.cli;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesPlatformCluster;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.cluster.PlatformCluster;
import org.jspecify.annotations.Nullable;

/** A Kubernetes cluster named by a kubeconfig file and context. */
final class KubernetesTarget implements Target {
  private final KubeClients clients;
  private final ClusterChoice.Kubernetes choice;
  private final KubeConnections connections;
  private final KubernetesOrchestrator orchestrator;
  private final KubernetesStore store;

  /**
   * The update engine's adapter, built when a command asks for it (the release commands do not).
   */
  private @Nullable KubernetesPlatformCluster platform;

  private KubernetesTarget(
      KubeClients clients, ClusterChoice.Kubernetes choice, KubeConnections connections) {
    this.clients = clients;
    this.choice = choice;
    this.connections = connections;
    this.orchestrator = new KubernetesOrchestrator(clients);
    this.store = new KubernetesStore(clients);
  }

  /**
   * Connects to the cluster of {@code choice} (its kubeconfig files, merged, and context), with
   * clients from {@code connections}. Nothing is sent yet: the first request of the command checks
   * that the API server takes connections ({@link ApiServerProbe}).
   */
  static KubernetesTarget open(ClusterChoice.Kubernetes choice, KubeConnections connections) {
    StartupTrace.mark("kubeconfig " + choice.kubeconfigs());
    KubeClients clients = connections.open(choice.kubeconfigs(), choice.context());
    ApiServerProbe.install(clients);
    ApiServerProbe.arm();
    KubernetesTarget target = new KubernetesTarget(clients, choice, connections);
    StartupTrace.mark("clients built");
    return target;
  }

  /** The clients, for what works beside the ports (the Helm import, a chart's capabilities). */
  KubeClients clients() {
    return clients;
  }

  /** The kubeconfig files and context the clients were built from (a chart's {@code lookup}). */
  ClusterChoice.Kubernetes choice() {
    return choice;
  }

  @Override
  public KubernetesTarget kubernetes() {
    return this;
  }

  @Override
  public void onRetry(KubeClients.RetryListener listener) {
    connections.onRetry(clients, listener);
  }

  @Override
  public Orchestrator orchestrator() {
    return orchestrator;
  }

  @Override
  public Store store() {
    return store;
  }

  @Override
  public PlatformCluster platform() {
    return platformCluster();
  }

  @Override
  public RolloutWaiter rolloutWaiter() {
    return platformCluster().rolloutWaiter();
  }

  private KubernetesPlatformCluster platformCluster() {
    KubernetesPlatformCluster p = platform;
    if (p == null) {
      p = new KubernetesPlatformCluster(clients);
      platform = p;
    }
    return p;
  }

  @Override
  public String defaultNamespace() {
    return clients.namespace().orElse("default");
  }

  @Override
  public String describe() {
    return "Kubernetes context " + clients.context() + " (" + clients.server() + ")";
  }

  /**
   * Gives the clients back to their {@link KubeConnections}: for a single command they close their
   * API connections, so the process exits at once (see {@link KubeClients#closeConnections}).
   */
  @Override
  public void close() {
    ApiServerProbe.disarm();
    connections.release(clients);
  }
}
