package dev.capstan.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.cli.RefusingKubeconfig;
import dev.capstan.k8s.KubeClients;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kept clients shared by commands that run at once: one set of clients for both, and each command
 * hears of the retries of its own requests only, those its helper threads send included.
 */
class CachedKubeConnectionsTest {
  @TempDir Path dir;

  private final CachedKubeConnections connections = new CachedKubeConnections();
  private Path kubeconfig = Path.of("unset");

  @BeforeEach
  void kubeconfigOfAClusterThatRefuses() throws IOException {
    // port 1 refuses every connection: each request is retried, and its retries heard
    kubeconfig = RefusingKubeconfig.write(dir);
  }

  /**
   * A command: opens the clients on its thread and hears of its retries; once every command has,
   * reads namespace {@code namespace} from a thread it starts (as the engine's writers do) until
   * the first retry is heard, then stops that request and releases the clients.
   */
  private final class Command extends Thread {
    final String namespace;
    final CountDownLatch ready;
    final List<String> heard = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch retried = new CountDownLatch(1);
    final AtomicReference<@Nullable KubeClients> clients = new AtomicReference<>();
    final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

    Command(String namespace, CountDownLatch ready) {
      super("command-" + namespace);
      this.namespace = namespace;
      this.ready = ready;
    }

    @Override
    public void run() {
      try {
        KubeClients opened = connections.open(List.of(kubeconfig), null);
        clients.set(opened);
        connections.onRetry(
            opened,
            (request, attempt, delay, reason) -> {
              heard.add(request);
              retried.countDown();
            });
        ready.countDown();
        ready.await();
        Thread writer =
            new Thread(
                () -> {
                  try {
                    new CoreV1Api(opened.apiClient()).readNamespace(namespace).execute();
                  } catch (ApiException e) {
                    // refused, or stopped between retries
                  }
                },
                "writer-" + namespace);
        writer.start();
        assertThat(retried.await(30, TimeUnit.SECONDS)).isTrue();
        writer.interrupt(); // ends its pause before the next try
        writer.join();
        connections.release(opened);
      } catch (InterruptedException | RuntimeException | Error e) {
        failure.set(e);
      }
    }
  }

  @Test
  void twoCommandsAtOnceShareTheClientsAndEachHearsOfItsOwnRetries() throws Exception {
    CountDownLatch ready = new CountDownLatch(2);
    Command a = new Command("a", ready);
    Command b = new Command("b", ready);

    a.start();
    b.start();
    a.join(60_000);
    b.join(60_000);

    assertThat(a.failure.get()).isNull();
    assertThat(b.failure.get()).isNull();
    assertThat(a.clients.get()).isNotNull().isSameAs(b.clients.get());
    assertThat(connections.size()).isEqualTo(1);
    assertThat(a.heard).isNotEmpty().allMatch(r -> r.endsWith("namespaces a"), "a's own");
    assertThat(b.heard).isNotEmpty().allMatch(r -> r.endsWith("namespaces b"), "b's own");
    connections.closeAll();
  }
}
