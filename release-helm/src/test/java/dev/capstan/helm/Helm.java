package dev.capstan.helm;

import dev.capstan.helm.testing.HelmBinaries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Helm binary against the test control plane ({@link HelmBinaries}). Helm's own config,
 * cache and data go to a folder under {@code target}.
 */
final class Helm {
  private final Path binary;
  private final Path kubeconfig;
  private final Path home;

  private Helm(Path binary, Path kubeconfig, Path home) {
    this.binary = binary;
    this.kubeconfig = kubeconfig;
    this.home = home;
  }

  /** Helm {@code major} (3 or 4) talking to the cluster of {@code kubeconfig}. */
  static Helm of(int major, Path kubeconfig) {
    Path home = Path.of("target", "helm-home", "helm" + major).toAbsolutePath();
    return new Helm(binary(major), kubeconfig, home);
  }

  /** The binary of Helm {@code major} (3 or 4), built the first time ({@link HelmBinaries}). */
  static Path binary(int major) {
    return HelmBinaries.of(major);
  }

  /** Runs {@code helm args...}; returns its standard output; fails with its output on an error. */
  String run(String... args) {
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(List.of(args));
    return run(
        command,
        Map.of(
            "KUBECONFIG", kubeconfig.toString(),
            "HELM_CONFIG_HOME", home.resolve("config").toString(),
            "HELM_CACHE_HOME", home.resolve("cache").toString(),
            "HELM_DATA_HOME", home.resolve("data").toString()),
        5);
  }

  private static String run(List<String> command, Map<String, String> env, int minutes) {
    try {
      Path out = Files.createTempFile("helm", ".out");
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.redirectOutput(out.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(command + " did not finish in " + minutes + " min");
      }
      String text = Files.readString(out, StandardCharsets.UTF_8);
      Files.delete(out);
      if (p.exitValue() != 0) {
        throw new IllegalStateException(command + " failed (" + p.exitValue() + "):\n" + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
