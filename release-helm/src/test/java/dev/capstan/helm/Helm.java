package dev.capstan.helm;

import dev.capstan.helm.testing.HelmBinaries;
import dev.capstan.k8s.testing.Programs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    Map<String, String> all = new java.util.HashMap<>(System.getenv());
    all.putAll(env);
    return Programs.run(command, all, java.time.Duration.ofMinutes(minutes));
  }
}
