package dev.capstan.cli.daemon;

import dev.capstan.cli.WarmUp;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Entry point of the daemon, started by the launcher beside a build's first command (or by {@code
 * ./capstan daemon start}): {@code --socket PATH [--idle SECONDS] [--jobs N]}: it listens at once,
 * warms up beside its first commands, stops after {@code --idle} seconds without a command (default
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
    Thread warmUp = new Thread(() -> warmUp(connections), "capstan-daemon-warm-up");
    warmUp.setDaemon(true);
    warmUp.start();
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

  /**
   * Runs a release's life a few times on a throw-away in-memory cluster and loads the Kubernetes
   * adapters ({@link WarmUp}) while the daemon already listens, so the commands after the first few
   * find the CLI, the planner and the codecs loaded and compiled (a second or two; a command sent
   * meanwhile runs beside it); then opens the connection to the cluster of its environment ({@link
   * WarmUp#connect}).
   */
  private static void warmUp(CachedKubeConnections connections) {
    long start = System.nanoTime();
    String failed = WarmUp.inMemory(3) + WarmUp.kubernetesClasses();
    System.err.println("capstan daemon: " + WarmUp.connect(connections, System::getenv));
    System.err.println(
        failed.isEmpty()
            ? "capstan daemon: warmed up in " + (System.nanoTime() - start) / 1_000_000 + " ms"
            : "capstan daemon: " + failed);
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
