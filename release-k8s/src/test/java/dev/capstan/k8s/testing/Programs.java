package dev.capstan.k8s.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Runs a program for a test (a build script, {@code helm}, {@code openssl}): no shell, standard
 * error with standard output, and a failure that shows both. The tests' one runner of programs.
 */
public final class Programs {
  private Programs() {}

  /**
   * Runs {@code command} and waits for it.
   *
   * @param environment exactly the environment it gets, or {@code null} for this process's
   * @param timeout how long it may run; it is killed after
   * @return what it printed
   * @throws IllegalStateException with what it printed, when it fails or outlives the timeout
   */
  public static String run(
      List<String> command, @Nullable Map<String, String> environment, Duration timeout) {
    try {
      Path out = Files.createTempFile("program", ".out");
      try {
        ProcessBuilder pb =
            new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        if (environment != null) {
          pb.environment().clear();
          pb.environment().putAll(environment);
        }
        Process p = pb.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(command + " did not finish in " + timeout);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
          throw new IllegalStateException(command + " failed (" + p.exitValue() + "):\n" + text);
        }
        return text;
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }
}
