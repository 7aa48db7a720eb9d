package dev.capstan.cli;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesPlatformCluster;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.cluster.PlatformCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** A Kubernetes cluster named by a kubeconfig file and context. */
final class KubernetesTarget implements Target {
  private final KubeClients clients;
  private final KubeConnections connections;
  private final KubernetesOrchestrator orchestrator;
  private final KubernetesStore store;
  private final KubernetesPlatformCluster platform;

  private KubernetesTarget(KubeClients clients, KubeConnections connections) {
    this.clients = clients;
    this.connections = connections;
    this.orchestrator = new KubernetesOrchestrator(clients);
    this.store = new KubernetesStore(clients);
    this.platform = new KubernetesPlatformCluster(clients);
  }

  /**
   * Connects with {@code kubeconfig} (or, when null, {@code $KUBECONFIG}, then {@code
   * ~/.kube/config}) and {@code context} (null: the current context), with clients from {@code
   * connections}.
   */
  static KubernetesTarget open(
      @Nullable Path kubeconfig,
      @Nullable String context,
      @Nullable String kubeconfigEnv,
      KubeConnections connections) {
    Path file = kubeconfig;
    if (file == null && kubeconfigEnv != null && !kubeconfigEnv.isBlank()) {
      int sep = kubeconfigEnv.indexOf(java.io.File.pathSeparatorChar);
      file = Path.of(sep < 0 ? kubeconfigEnv : kubeconfigEnv.substring(0, sep));
    }
    if (file == null) {
      file = Path.of(System.getProperty("user.home"), ".kube", "config");
    }
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--kubeconfig: no such file: " + file);
    }
    StartupTrace.mark("kubeconfig " + file);
    KubernetesTarget target = new KubernetesTarget(connections.open(file, context), connections);
    StartupTrace.mark("clients built");
    return target;
  }

  /** The clients, for what works beside the ports (the Helm import). */
  KubeClients clients() {
    return clients;
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
    return platform;
  }

  @Override
  public RolloutWaiter rolloutWaiter() {
    return platform.rolloutWaiter();
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
    connections.release(clients);
  }
}
