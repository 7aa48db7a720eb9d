package dev.capstan.helm.chart;

import dev.capstan.common.Escapes;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartOutputTooLargeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the Helm binary: with an argument list (no shell), an environment built from nothing but
 * what it is given (the process's own never reaches Helm: no {@code KUBECONFIG}, {@code
 * HELM_KUBETOKEN} or cloud credential of the host), its output to files in the workspace, bounded
 * in time (the time its rendering's {@link Deadline} leaves) and size (watched while it runs: Helm
 * is stopped as soon as a file passes {@link #MAX_OUTPUT}). An interrupt destroys it and keeps the
 * interrupt flag; Helm is destroyed with whatever it started.
 */
final class HelmProcess {
  /** The most a Helm process may print: the release file's limit on a release's manifests. */
  static final long MAX_OUTPUT = 64L << 20;

  /** How often a running Helm's output files are measured. */
  private static final long WATCH_MS = 50;

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

  HelmProcess(Path binary) {
    this.binary = binary;
  }

  Path binary() {
    return binary;
  }

  /**
   * Runs {@code helm args...} in {@code workspace} with exactly {@code environment}, for the time
   * {@code deadline} leaves.
   *
   * @throws ChartException when it cannot be started, the deadline passes first (naming the step
   *     and the deadline), it prints more than {@link #MAX_OUTPUT} on either output, or the wait is
   *     interrupted
   */
  Result run(
      List<String> args, Map<String, String> environment, Workspace workspace, Deadline deadline) {
    return run(args, environment, workspace, deadline, MAX_OUTPUT);
  }

  /**
   * As {@link #run(List, Map, Workspace, Deadline)}, Helm stopped as soon as its standard output
   * passes {@code maxOutput} bytes.
   *
   * @throws ChartOutputTooLargeException when standard output passes {@code maxOutput}
   */
  Result run(
      List<String> args,
      Map<String, String> environment,
      Workspace workspace,
      Deadline deadline,
      long maxOutput) {
    String step = "helm " + step(args);
    if (deadline.remaining().isZero()) {
      throw new ChartException(
          step + " was not started: " + deadline.describe() + " had passed; nothing was written");
    }
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
      while (!process.waitFor(
          Math.min(WATCH_MS, Math.max(1, deadline.remaining().toMillis())),
          TimeUnit.MILLISECONDS)) {
        if (deadline.remaining().isZero()) {
          stop(process);
          throw new ChartException(
              step + " did not finish by " + deadline.describe() + "; nothing was written");
        }
        long printed = size(out);
        if (printed > maxOutput) {
          stop(process);
          throw tooMuch(printed, maxOutput);
        }
        if (size(err) > MAX_OUTPUT) {
          stop(process);
          throw new ChartException(
              step
                  + " printed more than "
                  + (MAX_OUTPUT >> 20)
                  + " MiB of messages (standard error); nothing was written");
        }
      }
    } catch (InterruptedException e) {
      stop(process);
      Thread.currentThread().interrupt();
      throw new ChartException("interrupted while " + step + " ran; nothing was written", e);
    }
    return new Result(process.exitValue(), read(out, maxOutput), tail(err));
  }

  /** The step {@code args} run: {@code pull}, {@code repo update}, {@code dependency build}. */
  private static String step(List<String> args) {
    String verb = args.get(0);
    return (verb.equals("repo") || verb.equals("dependency")) && args.size() > 1
        ? verb + " " + args.get(1)
        : verb;
  }

  /** Destroys {@code process} and what it started, and waits a little for them to go. */
  private static void stop(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0; // not there yet
    }
  }

  private static ChartOutputTooLargeException tooMuch(long printed, long max) {
    return ChartOutputTooLargeException.output("helm", printed, max);
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
  }

  private static String read(Path file, long max) {
    try {
      long printed = Files.size(file);
      if (printed > max) {
        throw tooMuch(printed, max);
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
