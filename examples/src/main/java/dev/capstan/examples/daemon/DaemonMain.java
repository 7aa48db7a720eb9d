package dev.capstan.examples.daemon;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Entry point of the daemon, started by {@code ./capstan daemon start}: {@code --socket PATH
 * [--idle SECONDS]}. Logs to standard error (the launcher sends it to a file beside the socket).
 */
public final class DaemonMain {
  private DaemonMain() {}

  /**
   * Serves until stopped or idle, then halts.
   *
   * @param args {@code --socket PATH [--idle SECONDS]}
   */
  public static void main(String[] args) {
    Path socket = null;
    long idleSeconds = 1800;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--socket" -> socket = Path.of(args[i + 1]);
        case "--idle" -> idleSeconds = Long.parseLong(args[i + 1]);
        default -> {
          System.err.println("capstan daemon: unknown option " + args[i]);
          Runtime.getRuntime().halt(2);
        }
      }
    }
    if (socket == null || idleSeconds < 1) {
      System.err.println("capstan daemon: usage: --socket PATH [--idle SECONDS, at least 1]");
      Runtime.getRuntime().halt(2);
      return;
    }
    Path bound = socket;
    Daemon daemon;
    try {
      daemon =
          Daemon.bind(
              socket,
              Duration.ofSeconds(idleSeconds),
              new CachedKubeConnections(),
              () -> abandon(bound),
              System::nanoTime);
    } catch (IOException | RuntimeException e) {
      System.err.println("capstan daemon: cannot listen on " + socket + ": " + e.getMessage());
      Runtime.getRuntime().halt(1);
      return;
    }
    System.err.println(
        "capstan daemon: pid " + ProcessHandle.current().pid() + " listening on " + socket);
    daemon.serve();
    System.err.println("capstan daemon: stopped after " + daemon.served() + " commands");
    Runtime.getRuntime().halt(0);
  }

  /**
   * A client went away while its command ran: stop at once, as a killed {@code capstan} process
   * would; the socket file goes first so the next launcher does not try this daemon.
   */
  private static void abandon(Path socket) {
    System.err.println(
        "capstan daemon: the client went away while its command ran; halting, as a killed"
            + " capstan process would stop");
    try {
      java.nio.file.Files.deleteIfExists(socket);
    } catch (IOException e) {
      // halting anyway
    }
    Runtime.getRuntime().halt(1);
  }
}
