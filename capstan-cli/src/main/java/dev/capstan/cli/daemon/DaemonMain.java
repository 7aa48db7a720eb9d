package dev.capstan.cli.daemon;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.capstan.cli.Cli;
import dev.capstan.cli.Terminal;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Entry point of the daemon, started by {@code ./capstan daemon start}: {@code --socket PATH
 * [--idle SECONDS] [--jobs N]}: it stops after {@code --idle} seconds without a command (default
 * 1800) and runs up to {@code --jobs} commands at once (default {@value Daemon#DEFAULT_JOBS}; a
 * client beyond them runs its command in a JVM of its own). Logs to standard error (the launcher
 * sends it to a file beside the socket).
 */
public final class DaemonMain {
  private DaemonMain() {}

  /**
   * Serves until stopped or idle, then halts.
   *
   * @param args {@code --socket PATH [--idle SECONDS] [--jobs N]}
   */
  public static void main(String[] args) {
    Path socket = null;
    long idleSeconds = 1800;
    int jobs = Daemon.DEFAULT_JOBS;
    try {
      for (int i = 0; i + 1 < args.length; i += 2) {
        switch (args[i]) {
          case "--socket" -> socket = Path.of(args[i + 1]);
          case "--idle" -> idleSeconds = Long.parseLong(args[i + 1]);
          case "--jobs" -> jobs = Integer.parseInt(args[i + 1]);
          default -> {
            System.err.println("capstan daemon: unknown option " + args[i]);
            Runtime.getRuntime().halt(2);
          }
        }
      }
    } catch (NumberFormatException e) {
      socket = null; // reported below
    }
    if (socket == null || idleSeconds < 1 || jobs < 1 || args.length % 2 != 0) {
      System.err.println(
          "capstan daemon: usage: --socket PATH [--idle SECONDS, at least 1] [--jobs N, at least"
              + " 1]");
      Runtime.getRuntime().halt(2);
      return;
    }
    long warm = System.nanoTime();
    warmUp();
    System.err.println(
        "capstan daemon: warmed up in " + (System.nanoTime() - warm) / 1_000_000 + " ms");
    Path bound = socket;
    CachedKubeConnections connections = new CachedKubeConnections();
    Daemon daemon;
    try {
      daemon =
          Daemon.bind(
              socket,
              new Daemon.Settings(Duration.ofSeconds(idleSeconds), jobs, Daemon.DEFAULT_GRACE),
              connections,
              () -> abandon(bound),
              System.err::println,
              System::nanoTime);
    } catch (IOException | RuntimeException e) {
      System.err.println("capstan daemon: cannot listen on " + socket + ": " + e.getMessage());
      Runtime.getRuntime().halt(1);
      return;
    }
    System.err.println(
        "capstan daemon: pid "
            + ProcessHandle.current().pid()
            + " listening on "
            + socket
            + ", up to "
            + jobs
            + " commands at once");
    daemon.serve();
    try {
      daemon.awaitIdle();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connections.closeAll();
    System.err.println("capstan daemon: stopped after " + daemon.served() + " commands");
    Runtime.getRuntime().halt(0);
  }

  /** Three casts, an upgrade and reads of one. */
  private static final String[][] WARM_UP = {
    {"release", "cast", "warm", "-n", "demo", "-f", "v1.yaml", "--yes"},
    {"release", "cast", "warm", "-n", "demo", "-f", "v1.yaml", "--yes"},
    {"release", "plan", "warm", "-n", "demo", "-f", "v2.yaml"},
    {"release", "cast", "warm", "-n", "demo", "-f", "v2.yaml", "--yes"},
    {"release", "list", "-n", "demo"},
    {"release", "get", "warm", "-n", "demo"},
    {"release", "history", "warm", "-n", "demo", "-o", "json"},
    {"release", "uninstall", "warm", "-n", "demo", "--purge", "--yes"},
  };

  /**
   * Runs a release's life a few times on a throw-away in-memory cluster before listening, so the
   * first commands clients send find the CLI, the planner and the codecs loaded and compiled (about
   * a second at start; the first command after it is several times faster). Nothing of it is kept;
   * a failure only costs the warm-up.
   */
  private static void warmUp() {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("capstan-daemon-warm-up");
      for (String version : List.of("1", "2")) {
        Files.writeString(dir.resolve("v" + version + ".yaml"), manifest(version));
      }
      PrintStream sink = new PrintStream(OutputStream.nullOutputStream(), true, UTF_8);
      for (int round = 0; round < 3; round++) {
        Cli cli = new Cli(sink, sink, Terminal.none(), name -> null, dir);
        for (String[] command : WARM_UP) {
          cli.run(command);
        }
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("capstan daemon: warm-up skipped: " + e);
    } finally {
      if (dir != null) {
        delete(dir);
      }
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

  /**
   * The last resort ({@link Daemon}): a command stopped because its client went away has not ended
   * within its grace, and no other command runs. Halts at once, as a killed {@code capstan} process
   * would stop (the daemon logged why); the socket file goes first so the next launcher does not
   * try this daemon.
   */
  private static void abandon(Path socket) {
    try {
      java.nio.file.Files.deleteIfExists(socket);
    } catch (IOException e) {
      // halting anyway
    }
    Runtime.getRuntime().halt(1);
  }
}
