package dev.capstan.cli;

import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.cluster.PlatformCluster;
import org.jspecify.annotations.Nullable;

/** The cluster a command works on: the local in-memory cluster, or a Kubernetes cluster. */
interface Target extends AutoCloseable {

  /** Runs services. */
  Orchestrator orchestrator();

  /** Keeps the other objects, records and leases. */
  Store store();

  /** The platform the update engine works on. */
  PlatformCluster platform();

  /** How to wait for rollouts on {@link #platform()}, or {@code null} for the engine's default. */
  default @Nullable RolloutWaiter rolloutWaiter() {
    return null;
  }

  /** The namespace of commands that name none: the kubeconfig context's, else {@code default}. */
  default String defaultNamespace() {
    return "default";
  }

  /**
   * The Kubernetes cluster the objects go to, for what reads it beside the ports (a chart's
   * capabilities and {@code lookup}), or {@code null} for the in-memory cluster.
   */
  default @Nullable KubernetesTarget kubernetes() {
    return null;
  }

  /** One line saying which cluster this is. */
  String describe();

  /** Sets who hears of retried API requests (a cluster target; the in-memory one never retries). */
  default void onRetry(dev.capstan.k8s.KubeClients.RetryListener listener) {}

  /** Saves what must outlive the command (the in-memory state file). */
  @Override
  void close();
}
