package dev.capstan.helm.chart;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.ChartException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the Helm binary: with an argument list (no shell), an environment built from nothing but
 * what it is given (the process's own never reaches Helm: no {@code KUBECONFIG}, {@code
 * HELM_KUBETOKEN} or cloud credential of the host), its output to files in the workspace, bounded
 * in time and size. An interrupt destroys it and keeps the interrupt flag.
 */
final class HelmProcess {
  /** The most a Helm process may print: the release file's limit on a release's manifests. */
  static final long MAX_OUTPUT = 64L << 20;

  /**
   * How a run ended.
   *
   * @param exitCode its exit code
   * @param out what it printed on standard output
   * @param err what it printed on standard error, at most 64 KiB of its end
   */
  record Result(int exitCode, String out, String err) {
    /** Helm's own one-line reason: its last {@code Error: ...} line, else the last line. */
    String reason() {
      String reason = "";
      for (String line : err.strip().split("\n", -1)) {
        String l = line.strip();
        if (l.startsWith("Error: ")) {
          reason = l.substring("Error: ".length());
        } else if (reason.isEmpty() && !l.isEmpty()) {
          reason = l;
        }
      }
      if (reason.isEmpty()) {
        reason = "exit code " + exitCode + ", no message";
      }
      return Escapes.escape(reason.length() > 600 ? reason.substring(0, 600) + "..." : reason);
    }
  }

  private final Path binary;
  private final Duration timeout;

  HelmProcess(Path binary, Duration timeout) {
    this.binary = binary;
    this.timeout = timeout;
  }

  Path binary() {
    return binary;
  }

  /**
   * Runs {@code helm args...} in {@code workspace} with exactly {@code environment}.
   *
   * @throws ChartException when it cannot be started, outlives the timeout, prints more than {@link
   *     #MAX_OUTPUT}, or the wait is interrupted
   */
  Result run(List<String> args, Map<String, String> environment, Workspace workspace) {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(args);
    Path out = workspace.file("stdout");
    Path err = workspace.file("stderr");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(workspace.root().toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
    builder.environment().clear();
    builder.environment().putAll(environment);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new ChartException(
          "cannot run the Helm binary " + Escapes.quote(binary) + ": " + e.getMessage(), e);
    }
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new ChartException(
            "helm "
                + args.get(0)
                + " did not finish in "
                + dev.capstan.common.Durations.format(timeout)
                + "; nothing was written");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new ChartException(
          "interrupted while helm " + args.get(0) + " ran; nothing was written", e);
    }
    return new Result(process.exitValue(), read(out, MAX_OUTPUT), tail(err));
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }

  private static String read(Path file, long max) {
    try {
      if (Files.size(file) > max) {
        throw new ChartException(
            "helm printed more than "
                + (max >> 20)
                + " MiB, over the limit of a release's manifests");
      }
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ChartException("cannot read what helm printed: " + e.getMessage(), e);
    }
  }

  private static String tail(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      long size = Files.size(file);
      long skip = Math.max(0, size - 65_536);
      in.skipNBytes(skip);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
