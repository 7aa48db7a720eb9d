package dev.capstan.cli;

import dev.capstan.k8s.KubeClients;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Where a command's Kubernetes clients come from: built for the one command and closed after it
 * ({@link #perCommand()}, the default), or kept across commands by a long-lived process such as the
 * {@linkplain dev.capstan.cli.daemon.Daemon daemon}, so a command finds its connection to the API
 * server already open.
 */
public interface KubeConnections {

  /**
   * The clients for {@code kubeconfig} and {@code context} (null: the current context).
   *
   * @throws IllegalArgumentException when the kubeconfig cannot be read or names no such context
   */
  KubeClients open(Path kubeconfig, @Nullable String context);

  /** The command that {@linkplain #open opened} {@code clients} is done with them. */
  void release(KubeClients clients);

  /**
   * Sets who hears of the retries of the requests the calling command sends with {@code clients}
   * (it {@linkplain #open opened} them on this thread): by default the clients' own listener
   * ({@link KubeClients#onRetry}); clients shared by commands that run at once tell each command of
   * its own.
   */
  default void onRetry(KubeClients clients, KubeClients.RetryListener listener) {
    clients.onRetry(listener);
  }

  /** Clients built for each command and closed when it ends, so the process can exit at once. */
  static KubeConnections perCommand() {
    return new KubeConnections() {
      @Override
      public KubeClients open(Path kubeconfig, @Nullable String context) {
        return KubeClients.fromKubeconfig(kubeconfig, context);
      }

      @Override
      public void release(KubeClients clients) {
        clients.closeConnections();
      }
    };
  }
}
