package dev.capstan.cli.daemon;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon behind the real launcher ({@code ./capstan}) on a real control plane: a command sent
 * to it prints and exits exactly as the same command in a JVM of its own, and killing the command's
 * process mid-cast stops that cast alone before its next write: it records its failure and gives
 * the lease up, the daemon goes on, and the next cast goes on at once.
 */
@ControlPlaneTest
class DaemonOnKubernetesIT {
  private static final Path LAUNCHER = Path.of("..", "capstan").toAbsolutePath().normalize();

  @TempDir Path cache;
  @TempDir Path work;

  /** What a launcher run printed and returned. */
  record Ran(int exit, String out, String err) {}

  private Process start(Map<String, String> extraEnv, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile());
    Map<String, String> env = builder.environment();
    // no cluster of the machine's: the daemon opens a connection to its environment's ahead
    env.remove("KUBECONFIG");
    env.put("HOME", work.resolve("home").toString());
    env.put("CAPSTAN_CACHE_DIR", cache.toString());
    env.put("CAPSTAN_CDS", "false");
    env.putAll(extraEnv);
    builder.redirectOutput(work.resolve("out.txt").toFile());
    builder.redirectError(work.resolve("err.txt").toFile());
    return builder.start();
  }

  private Ran run(Map<String, String> env, String... args) throws Exception {
    Process p = start(env, args);
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("%s finished", List.of(args)).isTrue();
    return new Ran(
        p.exitValue(),
        Files.readString(work.resolve("out.txt"), UTF_8),
        Files.readString(work.resolve("err.txt"), UTF_8));
  }

  @AfterEach
  void stopDaemon() throws Exception {
    run(Map.of(), "daemon", "stop");
  }

  /** {@code release cast app -n NS -f manifests --yes} on the control plane, then {@code more}. */
  private static String[] castApp(String kubeconfig, TestNamespace ns, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--kubeconfig",
                kubeconfig,
                "release",
                "cast",
                "app",
                "-n",
                ns.name(),
                "-f",
                "manifests",
                "--yes"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** The build's folder in the cache: the jar's copy, the daemon's socket and log. */
  private Path buildFolder() throws IOException {
    try (var builds = Files.list(cache.resolve("builds"))) {
      return builds.findFirst().orElseThrow();
    }
  }

  /** The daemon's log, for a failure's message: what it did before a command went elsewhere. */
  private String daemonLog() throws IOException {
    if (!Files.isDirectory(cache.resolve("builds"))) {
      return "\n(no build folder)";
    }
    StringBuilder out = new StringBuilder();
    try (var files = Files.list(buildFolder())) {
      for (Path f : files.sorted().toList()) {
        out.append("\n").append(f.getFileName());
        if (f.toString().endsWith(".log")) {
          out.append(":\n").append(Files.readString(f, UTF_8));
        }
      }
    }
    return out.toString();
  }

  private static long pid(String started) {
    Matcher m = Pattern.compile("started, pid (\\d+);").matcher(started);
    assertThat(m.find()).as(started).isTrue();
    return Long.parseLong(m.group(1));
  }

  private Path manifests(String... configMaps) throws IOException {
    Path dir = Files.createDirectories(work.resolve("manifests"));
    StringBuilder yaml = new StringBuilder();
    for (String name : configMaps) {
      yaml.append("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ")
          .append(name)
          .append("\ndata:\n  k: v\n");
    }
    Files.writeString(dir.resolve("app.yaml"), yaml.toString());
    return dir;
  }

  @Test
  void aCommandThroughTheDaemonPrintsAndExitsAsInAJvmOfItsOwn(ControlPlane plane, TestNamespace ns)
      throws Exception {
    String kubeconfig = plane.kubeconfig().toString();
    Ran started = run(Map.of(), "daemon", "start");
    assertThat(started.exit()).as(started.err()).isZero();
    pid(started.out());
    manifests("a", "b");

    Ran cast = run(Map.of(), castApp(kubeconfig, ns));
    assertThat(cast.exit()).as(cast.err()).isZero();
    assertThat(cast.err())
        .contains("capstan: " + ns.name() + "/app: recorded revision 1 as deployed");
    // the cast ran in the daemon (a JVM of its own would print the same)
    Ran afterCast = run(Map.of(), "daemon", "status");
    assertThat(afterCast.exit()).as(afterCast.out() + daemonLog()).isZero();
    assertThat(afterCast.out()).as(daemonLog()).contains(", 1 commands run,");

    Map<String, String> jvm = Map.of("CAPSTAN_DAEMON", "false");
    List<String[]> commands =
        List.of(
            new String[] {"release", "list", "-n", ns.name()},
            new String[] {"release", "get", "app", "-n", ns.name()},
            new String[] {"release", "history", "app", "-n", ns.name()},
            new String[] {"release", "plan", "app", "-n", ns.name(), "-f", "manifests"},
            new String[] {"release", "get", "nope", "-n", ns.name()},
            new String[] {"release", "cast", "app", "-n", ns.name(), "-f", "nowhere", "--yes"});
    for (String[] command : commands) {
      List<String> args = new ArrayList<>(List.of("--kubeconfig", kubeconfig));
      args.addAll(List.of(command));
      Ran viaDaemon = run(Map.of(), args.toArray(String[]::new));
      Ran inJvm = run(jvm, args.toArray(String[]::new));
      assertThat(viaDaemon).as(String.join(" ", command)).isEqualTo(inJvm);
    }
    assertThat(run(Map.of(), "--kubeconfig", kubeconfig, "release", "list", "-n", ns.name()).out())
        .startsWith("NAME  REVISION  STATUS    VERSION  UPDATED\napp   1         deployed");

    Ran status = run(Map.of(), "daemon", "status");
    assertThat(status.exit()).as(status.out() + daemonLog()).isZero();
    // the cast, the six commands above and the list: the JVM runs went around it
    assertThat(status.out()).as(daemonLog()).contains(", 8 commands run,");
  }

  @Test
  void killingTheCommandMidCastStopsThatCastBeforeItsNextWriteAndTheDaemonGoesOn(
      ControlPlane plane, TestNamespace ns) throws Exception {
    String kubeconfig = plane.kubeconfig().toString();
    long daemon = pid(run(Map.of(), "daemon", "start").out());
    manifests("a", "b", "c");
    Map<String, String> hold = new HashMap<>(Map.of("CAPSTAN_TEST_HOLD_AFTER_WRITES", "1"));

    Process caster =
        start(hold, castApp(kubeconfig, ns, "--lease-duration", "5s", "--parallelism", "1"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.readString(work.resolve("err.txt"), UTF_8).contains("test hold after 1 writes")) {
      assertThat(System.nanoTime()).as("the cast reached its first write").isLessThan(deadline);
      assertThat(caster.isAlive()).as(Files.readString(work.resolve("err.txt"), UTF_8)).isTrue();
      Thread.sleep(50);
    }
    assertThat(caster.info().command()).hasValueSatisfying(c -> assertThat(c).endsWith("perl"));

    caster.destroyForcibly().waitFor(); // kill -9 of the command's process: the client

    // the cast alone stops, in the daemon, which goes on
    Ran status = run(Map.of(), "daemon", "status");
    while (!status.out().contains(", 1 commands run, 0 running ")) {
      assertThat(System.nanoTime()).as("the cast stopped: " + status.out()).isLessThan(deadline);
      Thread.sleep(50);
      status = run(Map.of(), "daemon", "status");
    }
    assertThat(ProcessHandle.of(daemon).filter(ProcessHandle::isAlive)).isPresent();
    assertThat(buildFolder().resolve("daemon.sock")).exists();
    assertThat(Files.readString(buildFolder().resolve("daemon.sock.log"), UTF_8))
        .contains("capstan daemon: the client of command 1 went away; stopping that command")
        .contains("capstan daemon: command 1 stopped (exit code 1) after its client went away");
    List<String> live = configMaps(plane, ns);
    assertThat(live).hasSize(1); // it stopped after its first write, before its next
    assertThat(
            new CoordinationV1Api(plane.client())
                .listNamespacedLease(ns.name())
                .execute()
                .getItems())
        .as("the lease was given up as the cast unwound")
        .isEmpty();
    assertThat(
            run(Map.of(), "--kubeconfig", kubeconfig, "release", "history", "app", "-n", ns.name())
                .out())
        .containsPattern("1 +failed");

    Ran next = run(Map.of(), castApp(kubeconfig, ns, "--wait"));
    assertThat(next.exit()).as(next.err()).isZero();
    assertThat(next.err()).as("nobody holds the lease").doesNotContain("for the lease held by");
    assertThat(configMaps(plane, ns)).containsExactly("a", "b", "c");
    assertThat(
            run(Map.of(), "--kubeconfig", kubeconfig, "release", "history", "app", "-n", ns.name())
                .out())
        .containsPattern("1 +failed")
        .containsPattern("2 +deployed");
  }

  private static List<String> configMaps(ControlPlane plane, TestNamespace ns) throws Exception {
    return new CoreV1Api(plane.client())
        .listNamespacedConfigMap(ns.name()).execute().getItems().stream()
            .map(c -> c.getMetadata().getName())
            .filter(n -> !n.equals("kube-root-ca.crt"))
            .sorted()
            .toList();
  }
}
