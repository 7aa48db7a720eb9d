package dev.capstan.helm.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

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

  /**
   * Runs Helm 3 with its config, cache and data under {@code home} and nothing else of this
   * process's environment (for {@code package}, {@code repo index}, {@code push}).
   *
   * @return what it printed
   */
  public static String helm3(Path home, String... args) {
    List<String> command = new java.util.ArrayList<>(List.of(of(3).toString()));
    command.addAll(List.of(args));
    try {
      Path out = Files.createTempFile("helm", ".out");
      try {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.redirectOutput(out.toFile());
        pb.environment().clear();
        pb.environment()
            .putAll(
                Map.of(
                    "HOME", home.toString(),
                    "HELM_CONFIG_HOME", home.resolve("config").toString(),
                    "HELM_CACHE_HOME", home.resolve("cache").toString(),
                    "HELM_DATA_HOME", home.resolve("data").toString()));
        Process p = pb.start();
        if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
          p.destroyForcibly();
          throw new IllegalStateException(
              command + " failed:\n" + Files.readString(out, StandardCharsets.UTF_8));
        }
        return Files.readString(out, StandardCharsets.UTF_8);
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Packages a copy of the chart directory {@code chart} at {@code version} into {@code into}
   * ({@code helm package}); returns the archive.
   */
  public static Path packaged(Path chart, String version, Path into, Path home) {
    try {
      Path copy =
          Files.createTempDirectory(home.getParent(), "chart-")
              .resolve(chart.getFileName().toString());
      try (java.util.stream.Stream<Path> all = Files.walk(chart)) {
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
      String name = copy.getFileName().toString();
      return into.resolve(name + "-" + version + ".tgz");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path build() {
    String script = System.getProperty("capstan.helm.build", "../testing/helm/build.sh");
    run(List.of("bash", script), 60);
    return Path.of(run(List.of("bash", script, "--print-bin"), 1).strip());
  }

  private static String run(List<String> command, int minutes) {
    try {
      Path out = Files.createTempFile("helm-build", ".out");
      try {
        Process p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
          p.destroyForcibly();
          throw new IllegalStateException(command + " did not finish in " + minutes + " min");
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
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
