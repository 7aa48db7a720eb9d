package dev.capstan.k8s.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeCondition;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A running Kubernetes control plane for integration tests: either one this JVM started with {@code
 * testing/control-plane/start.sh} (and stops by pid when closed, or at JVM exit), or an
 * already-running one named by a kubeconfig (see {@link ControlPlaneSettings}), which is never
 * stopped.
 */
public final class ControlPlane implements AutoCloseable {
  /**
   * An image kwok never makes Ready: its pods stay Pending, their container in ImagePullBackOff.
   */
  public static final String NEVER_READY_IMAGE = "registry.invalid/never-ready:1";

  /**
   * An image whose pods kwok leaves Pending, with no status, until {@link #releaseHeldPods} gives
   * their container another image: a rollout that cannot finish before the test lets it, so that
   * what a waiter does meanwhile (the WATCHes it opens) does not depend on timing.
   */
  public static final String HELD_IMAGE = "registry.invalid/held:1";

  /**
   * An image whose pods kwok fails at once: phase Failed, the container terminated with exit code 1
   * and reason Error, message {@code simulated failure (kwok)} (a failing hook's Job or Pod).
   */
  public static final String FAILING_IMAGE = "registry.invalid/fails:1";

  private static final Duration STOP_GRACE = Duration.ofSeconds(15);

  private final Path kubeconfig;
  private final @Nullable Launch launch;
  private final ApiClient client;
  private final List<String> failedTests = Collections.synchronizedList(new ArrayList<>());
  private final AtomicBoolean closed = new AtomicBoolean();
  private final @Nullable Thread shutdownHook;

  /** What start.sh left behind: its state folder, the script folder and the pids it recorded. */
  private record Launch(Path stateDir, Path scriptDir, Map<String, Long> pids) {}

  private ControlPlane(Path kubeconfig, @Nullable Launch launch) {
    this.kubeconfig = kubeconfig;
    this.launch = launch;
    this.client = newClient(kubeconfig, Duration.ofSeconds(30));
    if (launch != null) {
      Thread hook = new Thread(() -> stopProcesses(false), "capstan-control-plane-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      this.shutdownHook = hook;
    } else {
      this.shutdownHook = null;
    }
  }

  /**
   * Starts a control plane with {@code start.sh} (which first builds the binaries when the cache is
   * empty, printing its progress), or connects to the one the settings name.
   *
   * @throws IllegalStateException when it cannot be started or reached; the message says why and
   *     where the logs are
   */
  static ControlPlane startOrConnect(ControlPlaneSettings settings) {
    Optional<Path> external = settings.externalKubeconfig();
    if (external.isPresent()) {
      ControlPlane plane = new ControlPlane(external.get(), null);
      plane.requireReadyNode();
      settings.k8sVersion().ifPresent(plane::requireVersion);
      log("using the running control plane of " + external.get() + " (not stopped by the tests)");
      return plane;
    }
    Path scriptDir = settings.scriptDir();
    Path stateDir = settings.stateDir();
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "bash",
            scriptDir.resolve("start.sh").toString(),
            "--dir",
            stateDir.toString(),
            "--owner-pid",
            Long.toString(ProcessHandle.current().pid())));
    settings.k8sVersion().ifPresent(v -> command.addAll(List.of("--k8s-version", v)));
    log("starting: " + String.join(" ", command));
    Deque<String> tail = run(command);
    Path state = stateDir.resolve("state.env");
    if (!Files.isRegularFile(state)) {
      throw new IllegalStateException(
          "control plane did not start (logs: "
              + stateDir.resolve("logs")
              + "); last output of start.sh:\n"
              + String.join("\n", tail));
    }
    Map<String, String> env = readEnv(state);
    Launch launch =
        new Launch(
            stateDir,
            scriptDir,
            new java.util.concurrent.ConcurrentHashMap<>(readPids(stateDir.resolve("pids"))));
    return new ControlPlane(Path.of(requireNonNull(env.get("KUBECONFIG"), "KUBECONFIG")), launch);
  }

  /** The kubeconfig with the admin (system:masters) client certificate. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** A client shared by all tests (read timeout 30 s); do not change its settings. */
  public ApiClient client() {
    return client;
  }

  /**
   * A new client of its own, for watches or other long calls.
   *
   * @param readTimeout the read timeout; {@link Duration#ZERO} for none
   */
  public ApiClient newClient(Duration readTimeout) {
    return newClient(kubeconfig, readTimeout);
  }

  /**
   * Lets the held pods of a namespace become Ready: every pod whose first container runs {@link
   * #HELD_IMAGE} gets {@code image} instead (a JSON patch of the pod; the Deployment and its
   * ReplicaSet are left alone), and kwok makes it Ready.
   *
   * @return how many pods were released
   */
  public int releaseHeldPods(String namespace, String image) {
    CoreV1Api core = new CoreV1Api(client);
    int released = 0;
    try {
      for (io.kubernetes.client.openapi.models.V1Pod pod :
          core.listNamespacedPod(namespace).execute().getItems()) {
        if (pod.getSpec() != null
            && HELD_IMAGE.equals(pod.getSpec().getContainers().get(0).getImage())) {
          io.kubernetes.client.util.PatchUtils.patch(
              io.kubernetes.client.openapi.models.V1Pod.class,
              () ->
                  core.patchNamespacedPod(
                          pod.getMetadata().getName(),
                          namespace,
                          new io.kubernetes.client.custom.V1Patch(
                              "[{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\","
                                  + "\"value\":\""
                                  + image
                                  + "\"}]"))
                      .buildCall(null),
              io.kubernetes.client.custom.V1Patch.PATCH_FORMAT_JSON_PATCH,
              client);
          released++;
        }
      }
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot release the held pods of " + namespace + ": HTTP " + e.getCode(), e);
    }
    return released;
  }

  /**
   * An outage of the API server as an operator's restart makes it: kube-apiserver is sent SIGTERM
   * (it drains, answering 503 or refusing, then exits), kept down until {@code down} has passed
   * since the signal, started again with the same command line and environment, and waited for
   * until it answers. Then, so that no later test meets what the outage left behind,
   * kube-controller-manager is restarted at once and waited for until it has caught up (a new
   * namespace gets its default ServiceAccount), and every node until Ready (kwok renews them):
   * during the outage its node lifecycle controller saw every node's lease lapse, and once the API
   * server answered it went on marking the nodes' pods not ready from its queue, pods of a later
   * test's rollout included, which then never completed (seen in CI on the test after this one: a
   * Deployment's ProgressDeadlineExceeded). Only for a control plane this JVM started; the new pids
   * are recorded where {@code stop.sh} finds them.
   *
   * @return the outage, from the signal until the API server answered again
   */
  public Duration restartApiServer(Duration down) {
    Launch l = requireNonNull(launch, "the API server of a control plane started elsewhere");
    long t0 = System.nanoTime();
    log("stopping kube-apiserver with SIGTERM for " + down.toSeconds() + " s");
    Process started = restart(l, "kube-apiserver", down);
    io.kubernetes.client.openapi.apis.VersionApi version =
        new io.kubernetes.client.openapi.apis.VersionApi(newClient(Duration.ofSeconds(5)));
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (true) {
      try {
        version.getCode().execute();
        new CoreV1Api(client).readNamespace("default").execute();
        break;
      } catch (ApiException e) {
        if (!started.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "kube-apiserver did not come back (see " + l.stateDir().resolve("logs") + ")", e);
        }
        pause(200);
      }
    }
    Duration outage = Duration.ofNanos(System.nanoTime() - t0);
    log("kube-apiserver answers again, " + outage.toSeconds() + " s after SIGTERM");
    restart(l, "kube-controller-manager", Duration.ZERO);
    awaitControllersCaughtUp(Duration.ofMinutes(3));
    awaitNodesReady(Duration.ofMinutes(2));
    return outage;
  }

  /**
   * Stops {@code component} with SIGTERM, waits until it exited and {@code down} has passed since
   * the signal, and starts it again with the same command line, log and {@code HOME}, its new pid
   * recorded; returns the new process.
   */
  private Process restart(Launch l, String component, Duration down) {
    long pid = requireNonNull(l.pids().get(component), component + " pid");
    ProcessHandle old =
        ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no pid " + pid));
    List<String> argv;
    try {
      argv =
          List.of(
              new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), UTF_8)
                  .split("\0"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the command line of pid " + pid, e);
    }
    long t0 = System.nanoTime();
    old.destroy();
    try {
      old.onExit().get(down.toMillis() + 60_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + component + " stopped", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(component + " (pid " + pid + ") did not exit", e);
    }
    long left = down.toNanos() - (System.nanoTime() - t0);
    if (left > 0) {
      pause(left / 1_000_000);
    }
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(
                    l.stateDir().resolve("logs").resolve(component + ".log").toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("HOME", l.stateDir().toString());
    Process started;
    try {
      started = builder.start();
      Files.writeString(
          l.stateDir().resolve("pids").resolve(component + ".pid"), started.pid() + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + component + " again", e);
    }
    l.pids().put(component, started.pid());
    log("started " + component + " again (pid " + started.pid() + ")");
    return started;
  }

  /** Until every node is Ready, or fails after {@code timeout}. */
  private void awaitNodesReady(Duration timeout) {
    long t0 = System.nanoTime();
    while (true) {
      try {
        List<V1Node> nodes = new CoreV1Api(client).listNode().execute().getItems();
        boolean allReady =
            !nodes.isEmpty()
                && nodes.stream()
                    .allMatch(
                        n ->
                            n.getStatus() != null
                                && n.getStatus().getConditions() != null
                                && n.getStatus().getConditions().stream()
                                    .anyMatch(ControlPlane::isReadyTrue));
        if (allReady) {
          log("every node Ready");
          return;
        }
      } catch (ApiException e) {
        // not answering yet: try again
      }
      if (System.nanoTime() - t0 > timeout.toNanos()) {
        throw new IllegalStateException(
            "a node not Ready "
                + timeout.toSeconds()
                + " s after the API server came back (see "
                + logDir().map(Path::toString).orElse("kwok's log")
                + ")");
      }
      pause(250);
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the control plane restarted", e);
    }
  }

  /**
   * Until kube-controller-manager works again after an API server restart: a new namespace gets its
   * {@code default} ServiceAccount. Its informers relist after the outage, and until they have, a
   * later test's namespace would wait for that account in vain. The namespace is deleted again.
   */
  private void awaitControllersCaughtUp(Duration timeout) {
    CoreV1Api core = new CoreV1Api(client);
    String name = "it-after-restart-" + Long.toHexString(System.nanoTime());
    long t0 = System.nanoTime();
    try {
      core.createNamespace(
              new io.kubernetes.client.openapi.models.V1Namespace()
                  .metadata(
                      new io.kubernetes.client.openapi.models.V1ObjectMeta()
                          .name(name)
                          .labels(Map.of("capstan.dev/test", "true"))))
          .execute();
      while (true) {
        try {
          core.readNamespacedServiceAccount("default", name).execute();
          break;
        } catch (ApiException e) {
          if (e.getCode() != 404 || System.nanoTime() - t0 > timeout.toNanos()) {
            throw new IllegalStateException(
                "no ServiceAccount "
                    + name
                    + "/default "
                    + timeout.toSeconds()
                    + " s after the API server came back: kube-controller-manager did not catch"
                    + " up (see "
                    + logDir().map(Path::toString).orElse("its log")
                    + ")",
                e);
          }
          Thread.sleep(250);
        }
      }
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot create namespace " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the controllers caught up", e);
    } finally {
      try {
        core.deleteNamespace(name).execute();
      } catch (ApiException ignored) {
        // not created, or already going
      }
    }
    log(
        "kube-controller-manager caught up, "
            + Duration.ofNanos(System.nanoTime() - t0).toSeconds()
            + " s after kube-apiserver answered");
  }

  /** Whether this JVM started the control plane (and so stops it). */
  public boolean startedHere() {
    return launch != null;
  }

  /** The folder with the components' logs, when this JVM started the control plane. */
  public Optional<Path> logDir() {
    return Optional.ofNullable(launch).map(l -> l.stateDir().resolve("logs"));
  }

  /** Records a failed test, so that {@link #close()} keeps the logs and says where they are. */
  void recordFailure(String test) {
    failedTests.add(test);
  }

  /**
   * Stops every process start.sh started, by pid. The logs are kept when a test failed (or when the
   * JVM exits before the run ends); otherwise the state folder is removed.
   */
  @Override
  public void close() {
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException alreadyShuttingDown) {
        // the hook is running or has run; stopProcesses is idempotent
      }
    }
    boolean passed = failedTests.isEmpty();
    stopProcesses(passed);
    if (launch != null && !passed) {
      log(
          "kept the control plane logs for "
              + failedTests.size()
              + " failed test(s): "
              + launch.stateDir().resolve("logs"));
    }
  }

  private void stopProcesses(boolean purge) {
    Launch l = launch;
    if (l == null || !closed.compareAndSet(false, true)) {
      return;
    }
    List<String> command =
        List.of(
            "bash",
            l.scriptDir().resolve("stop.sh").toString(),
            "--dir",
            l.stateDir().toString(),
            purge ? "--purge" : "--keep-logs");
    try {
      run(command);
    } catch (RuntimeException e) {
      log("stop.sh failed (" + e.getMessage() + "); stopping the recorded pids directly");
    }
    // Belt and braces: anything stop.sh left alive is ended here, still only by its recorded pid.
    l.pids()
        .forEach(
            (name, pid) ->
                ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("/" + name)).orElse(false))
                    .ifPresent(ControlPlane::kill));
  }

  private static void kill(ProcessHandle process) {
    log("stopping leftover pid " + process.pid());
    process.destroy();
    try {
      process.onExit().get(STOP_GRACE.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      process.destroyForcibly();
    }
  }

  /** The version the API server reports, e.g. {@code v1.34.4}. */
  public String serverVersion() {
    try {
      return new io.kubernetes.client.openapi.apis.VersionApi(client)
          .getCode()
          .execute()
          .getGitVersion();
    } catch (ApiException e) {
      throw new IllegalStateException("cannot read /version: HTTP " + e.getCode(), e);
    }
  }

  /** Fails unless the API server is of the version asked for: a minor, a patch release or a tag. */
  private void requireVersion(String wanted) {
    String want = wanted.startsWith("v") ? wanted : "v" + wanted;
    String got = serverVersion();
    if (!(got.equals(want) || got.startsWith(want + "."))) {
      throw new IllegalStateException(
          "the control plane of "
              + kubeconfig
              + " runs Kubernetes "
              + got
              + ", but capstan.k8s.version/CAPSTAN_K8S_VERSION asks for "
              + wanted);
    }
  }

  private void requireReadyNode() {
    try {
      List<V1Node> nodes = new CoreV1Api(client).listNode().execute().getItems();
      boolean ready =
          nodes.stream()
              .map(n -> n.getStatus() == null ? null : n.getStatus().getConditions())
              .filter(c -> c != null)
              .flatMap(List::stream)
              .anyMatch(ControlPlane::isReadyTrue);
      if (!ready) {
        throw new IllegalStateException(
            "the control plane of "
                + kubeconfig
                + " has no Ready node ("
                + nodes.size()
                + " nodes)");
      }
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot list nodes with " + kubeconfig + ": HTTP " + e.getCode() + " " + e.getMessage(),
          e);
    }
  }

  private static boolean isReadyTrue(V1NodeCondition c) {
    return "Ready".equals(c.getType()) && "True".equals(c.getStatus());
  }

  private static ApiClient newClient(Path kubeconfig, Duration readTimeout) {
    // KubeClients reads the client key with the JDK; client-java's own reading needs BouncyCastle,
    // which the build leaves out (ARCHITECTURE.md, "Build and dependencies")
    ApiClient apiClient = dev.capstan.k8s.KubeClients.fromKubeconfig(kubeconfig).apiClient();
    apiClient.setReadTimeout((int) readTimeout.toMillis());
    return apiClient;
  }

  /**
   * Runs a script, echoing its output (the build's progress included) line by line, and fails
   * unless it exits with 0. Returns the last lines of output.
   */
  private static Deque<String> run(List<String> command) {
    Deque<String> tail = new ArrayDeque<>();
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          System.out.println(line);
          tail.addLast(line);
          if (tail.size() > 40) {
            tail.removeFirst();
          }
        }
      }
      int exit = process.waitFor();
      if (exit != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " exited with "
                + exit
                + "; last output:\n"
                + String.join("\n", tail));
      }
      return tail;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }

  private static Map<String, String> readEnv(Path file) {
    Map<String, String> env = new LinkedHashMap<>();
    for (String line : readLines(file)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return env;
  }

  private static Map<String, Long> readPids(Path dir) {
    Map<String, Long> pids = new LinkedHashMap<>();
    try (var files = Files.list(dir)) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        if (name.endsWith(".pid") && !name.equals("watchdog.pid")) {
          pids.put(
              name.substring(0, name.length() - ".pid".length()),
              Long.parseLong(readLines(file).get(0).trim()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read pids in " + dir, e);
    }
    return pids;
  }

  private static List<String> readLines(Path file) {
    try {
      return Files.readAllLines(file, UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  static void log(String message) {
    System.out.println("[control-plane] " + message);
  }
}
