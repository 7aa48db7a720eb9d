package dev.capstan.jdbc;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A throwaway PostgreSQL server on loopback, started by {@code testing/postgres/postgres.sh} in
 * {@code target/postgres-<port>}: database {@code capstan}, user {@code capstan}, trust auth. The
 * server binaries come from a Maven artifact ({@link PostgresBinaries}), not from the host. {@link
 * #close()} stops it by pid; a shutdown hook and the script's watchdog do so if the JVM ends first.
 * Public for the ITs of other modules (through this module's test-jar).
 */
public final class PostgresServer implements AutoCloseable {
  static final Path SCRIPT =
      Path.of("..").toAbsolutePath().normalize().resolve("testing/postgres/postgres.sh");

  private final Path dir;
  private final int port;
  private final long pid;
  private final Thread shutdownHook;

  private PostgresServer(Path dir, int port, long pid) {
    this.dir = dir;
    this.port = port;
    this.pid = pid;
    this.shutdownHook = new Thread(this::stop, "postgres-stop-" + pid);
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts a server on a free loopback port. */
  static PostgresServer start() {
    int port = freePort();
    Path dir = Path.of("target", "postgres-" + port).toAbsolutePath();
    Path home = PostgresBinaries.home();
    String out =
        run(
            home,
            List.of(
                SCRIPT.toString(),
                "start",
                dir.toString(),
                Integer.toString(port),
                Long.toString(ProcessHandle.current().pid())));
    String[] lines = out.strip().split("\n", -1);
    return new PostgresServer(dir, port, Long.parseLong(lines[lines.length - 1].strip()));
  }

  /** The JDBC URL of the test database. */
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/capstan";
  }

  /** A data source for the test database as user {@code capstan}. */
  public DriverDataSource dataSource() {
    return new DriverDataSource(url(), "capstan", "");
  }

  /** The server's pid. */
  long pid() {
    return pid;
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs (or ran) anyway
    }
    stop();
  }

  private void stop() {
    run(null, List.of(SCRIPT.toString(), "stop", dir.toString()));
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  private static String run(@Nullable Path home, List<String> command) {
    try {
      Path log = Files.createTempFile("postgres-sh", ".log");
      try {
        ProcessBuilder builder =
            new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (home != null) {
          builder.environment().put("CAPSTAN_POSTGRES_HOME", home.toString());
        }
        Process p = builder.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException("timed out after 120 s: " + String.join(" ", command));
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
          throw new IllegalStateException(
              String.join(" ", command) + " exited with " + p.exitValue() + ":\n" + out);
        }
        return out;
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new InterruptedIOException("interrupted: " + command));
    }
  }
}
