package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesPlatformCluster;
import dev.capstan.k8s.KubernetesStore;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.V1SecretList;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Work that loads and compiles the command line's code ahead of the commands that need it, on a
 * throw-away in-memory cluster. The daemon runs it once it listens ({@code
 * dev.capstan.cli.daemon.DaemonMain}), so its first commands find the CLI, the planner and the
 * codecs compiled, and then opens its connection to the cluster its environment names ({@link
 * #connect}); a build's first command runs it as it exits when the launcher made it the training
 * run of the class cache ({@code -Dcapstan.training=true}: {@link #trainingRun()}), so the cache
 * holds the classes of an in-memory cast and of the Kubernetes adapters, whichever cluster that
 * first command worked on. Nothing of it is kept but that connection; a failure only costs the
 * warm-up.
 */
public final class WarmUp {
  /** A release's life: three casts, an upgrade and reads of one. */
  private static final String[][] COMMANDS = {
    {"release", "cast", "warm", "-n", "demo", "-f", "v1.yaml", "--yes"},
    {"release", "cast", "warm", "-n", "demo", "-f", "v1.yaml", "--yes"},
    {"release", "plan", "warm", "-n", "demo", "-f", "v2.yaml"},
    {"release", "cast", "warm", "-n", "demo", "-f", "v2.yaml", "--yes"},
    {"release", "list", "-n", "demo"},
    {"release", "get", "warm", "-n", "demo"},
    {"release", "history", "warm", "-n", "demo", "-o", "json"},
    {"release", "uninstall", "warm", "-n", "demo", "--purge", "--yes"},
  };

  private WarmUp() {}

  /** Whether the launcher made this JVM the training run of its build's class cache. */
  static boolean trainingRun() {
    return Boolean.getBoolean("capstan.training");
  }

  /**
   * Runs a release's life {@code rounds} times on a throw-away in-memory cluster, in this JVM,
   * printing nothing.
   *
   * @param rounds how many times
   * @return a line saying what failed, or empty
   */
  public static String inMemory(int rounds) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("capstan-warm-up");
      for (String version : List.of("1", "2")) {
        Files.writeString(dir.resolve("v" + version + ".yaml"), manifest(version));
      }
      PrintStream sink = new PrintStream(OutputStream.nullOutputStream(), true, UTF_8);
      for (int round = 0; round < rounds; round++) {
        Cli cli = new Cli(sink, sink, Terminal.none(), name -> null, dir);
        for (String[] command : COMMANDS) {
          cli.run(command);
        }
      }
      return "";
    } catch (IOException | RuntimeException e) {
      return "warm-up skipped: " + e;
    } finally {
      if (dir != null) {
        delete(dir);
      }
    }
  }

  /**
   * Loads the Kubernetes adapters' classes: clients from a kubeconfig that names a closed loopback
   * port (never connected to), the orchestrator, store and platform adapters on them, and a list of
   * release record Secrets read from JSON as an API server's answer is.
   *
   * @return a line saying what failed, or empty
   */
  public static String kubernetesClasses() {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("capstan-warm-up");
      Path kubeconfig =
          Files.writeString(
              dir.resolve("kubeconfig"),
              """
              apiVersion: v1
              kind: Config
              clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
              users: [{name: u, user: {token: t}}]
              contexts: [{name: ctx, context: {cluster: c, user: u, namespace: demo}}]
              current-context: ctx
              """);
      KubeClients clients = KubeClients.fromKubeconfig(List.of(kubeconfig), null);
      new KubernetesOrchestrator(clients);
      new KubernetesStore(clients);
      new KubernetesPlatformCluster(clients);
      io.kubernetes.client.openapi.JSON.deserialize(
          """
              {"kind": "SecretList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"},
               "items": [{"metadata": {"name": "sh.capstan.release.v1.warm.v1", "namespace": "demo",
                 "labels": {"owner": "capstan", "name": "warm", "version": "1"}},
                 "type": "capstan.dev/release.v1", "data": {"release": "e30="}}]}
              """,
          V1SecretList.class);
      clients.closeConnections();
      return "";
    } catch (IOException | RuntimeException e) {
      return "warm-up of the Kubernetes classes skipped: " + e;
    } finally {
      if (dir != null) {
        delete(dir);
      }
    }
  }

  /**
   * Opens the connection to the cluster the environment names without a flag ({@code $KUBECONFIG},
   * else {@code ~/.kube/config}, with its current context: the cluster of the command that started
   * the daemon, as a person or script that exported it runs every command) and keeps it in {@code
   * connections}, so the first command there finds its TLS connection open and its code compiled:
   * one {@code GET /version}, the request of kubectl's discovery, which every user may send.
   * Nothing when the environment names the in-memory cluster or no kubeconfig.
   *
   * @param connections the daemon's kept connections
   * @param env the daemon's environment (the launcher's that started it)
   * @return a line saying which server was reached, or why not
   */
  public static String connect(
      KubeConnections connections, Function<String, @Nullable String> env) {
    ClusterChoice choice;
    try {
      choice =
          ClusterChoice.of(
              new ClusterChoice.Options(false, null, null, null),
              env,
              path -> path.toAbsolutePath(),
              null);
    } catch (RuntimeException e) {
      return "no connection opened ahead: " + e.getMessage();
    }
    if (!(choice instanceof ClusterChoice.Kubernetes kube)) {
      return "no connection opened ahead: the environment names the in-memory cluster";
    }
    KubeClients clients;
    try {
      clients = connections.open(kube.kubeconfigs(), null);
    } catch (RuntimeException e) {
      return "no connection opened ahead: " + e.getMessage();
    }
    try {
      new VersionApi(clients.apiClient()).getCode().execute();
      return "connected to " + clients.server() + " ahead";
    } catch (ApiException | RuntimeException e) {
      return "no connection opened ahead to " + clients.server() + ": " + e.getMessage();
    } finally {
      connections.release(clients);
    }
  }

  private static String manifest(String version) {
    return """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: warm-settings}
        data: {version: "%1$s"}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: warm, labels: {app: warm}}
        spec:
          replicas: 1
          selector: {matchLabels: {app: warm}}
          template:
            metadata: {labels: {app: warm}}
            spec:
              containers:
              - name: warm
                image: registry.example/warm:%1$s
                envFrom: [{configMapRef: {name: warm-settings}}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: warm}
        spec:
          selector: {app: warm}
          ports: [{port: 80}]
        """
        .formatted(version);
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder left behind
    }
  }
}
