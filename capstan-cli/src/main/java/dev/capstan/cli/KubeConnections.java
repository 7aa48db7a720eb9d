package dev.capstan.cli;

import dev.capstan.k8s.KubeClients;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where a command's Kubernetes clients come from: built for the one command and closed after it
 * ({@link #perCommand()}, the default), or kept across commands by a long-lived process such as the
 * {@linkplain dev.capstan.cli.daemon.Daemon daemon}, so a command finds its connection to the API
 * server already open.
 */
public interface KubeConnections {

  /**
   * The clients for {@code kubeconfigs} (one file, or a {@code $KUBECONFIG} list, merged as kubectl
   * merges it) and {@code context} (null: the current context).
   *
   * @throws IllegalArgumentException when a kubeconfig cannot be read or they name no such context
   */
  KubeClients open(List<Path> kubeconfigs, @Nullable String context);

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
      public KubeClients open(List<Path> kubeconfigs, @Nullable String context) {
        return KubeClients.fromKubeconfig(kubeconfigs, context);
      }

      @Override
      public void release(KubeClients clients) {
        clients.closeConnections();
      }
    };
  }
}
