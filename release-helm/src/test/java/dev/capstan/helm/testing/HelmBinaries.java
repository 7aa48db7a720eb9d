package dev.capstan.helm.testing;

import dev.capstan.k8s.testing.Programs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The Helm 3 and Helm 4 binaries of {@code testing/helm/build.sh} (system property {@code
 * capstan.helm.build}), which builds them from the Go module proxy into {@code ~/.cache/capstan}
 * the first time and only checks them afterwards, so a clean CI machine builds them here.
 */
public final class HelmBinaries {
  private static final Map<String, Path> BIN = new ConcurrentHashMap<>();

  private HelmBinaries() {}

  /** The binary of Helm {@code major} (3 or 4). */
  public static Path of(int major) {
    return BIN.computeIfAbsent("bin", k -> build()).resolve("helm" + major);
  }

  private static Path build() {
    String script = System.getProperty("capstan.helm.build", "../testing/helm/build.sh");
    Programs.run(List.of("bash", script), null, Duration.ofMinutes(60));
    return Path.of(
        Programs.run(List.of("bash", script, "--print-bin"), null, Duration.ofMinutes(1)).strip());
  }

  /**
   * Runs Helm 3 with its config, cache and data under {@code home} and nothing else of this
   * process's environment (for {@code package}, {@code repo index}, {@code push}).
   *
   * @return what it printed
   */
  public static String helm3(Path home, String... args) {
    List<String> command = new ArrayList<>(List.of(of(3).toString()));
    command.addAll(List.of(args));
    return Programs.run(
        command,
        Map.of(
            "HOME", home.toString(),
            "HELM_CONFIG_HOME", home.resolve("config").toString(),
            "HELM_CACHE_HOME", home.resolve("cache").toString(),
            "HELM_DATA_HOME", home.resolve("data").toString()),
        Duration.ofMinutes(2));
  }

  /**
   * Packages a copy of the chart directory {@code chart} at {@code version} into {@code into}
   * ({@code helm package}); returns the archive.
   */
  public static Path packaged(Path chart, String version, Path into, Path home) {
    try {
      Files.createDirectories(home);
      Path copy =
          Files.createTempDirectory(home.getParent(), "chart-")
              .resolve(chart.getFileName().toString());
      try (Stream<Path> all = Files.walk(chart)) {
        for (Path p : (Iterable<Path>) all::iterator) {
          Path target = copy.resolve(chart.relativize(p).toString());
          if (Files.isDirectory(p)) {
            Files.createDirectories(target);
          } else {
            Files.copy(p, target);
          }
        }
      }
      Path chartYaml = copy.resolve("Chart.yaml");
      Files.writeString(
          chartYaml,
          Files.readString(chartYaml).replaceFirst("(?m)^version: .*$", "version: " + version));
      Files.createDirectories(into);
      helm3(home, "package", copy.toString(), "--destination", into.toString());
      return into.resolve(copy.getFileName() + "-" + version + ".tgz");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
