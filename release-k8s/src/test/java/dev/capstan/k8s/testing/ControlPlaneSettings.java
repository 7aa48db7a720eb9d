package dev.capstan.k8s.testing;

import static java.util.Objects.requireNonNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Where the control plane comes from, read from system properties (failsafe passes {@code -D}
 * options on) with environment variables as the fallback:
 *
 * <ul>
 *   <li>{@code capstan.k8s.kubeconfig} / {@code CAPSTAN_KUBECONFIG}: use the control plane this
 *       kubeconfig names (e.g. one from {@code start.sh}); nothing is started or stopped;
 *   <li>{@code capstan.k8s.version} / {@code CAPSTAN_K8S_VERSION}: the Kubernetes version start.sh
 *       runs, one of the matrix in {@code testing/control-plane/lib.sh} ({@code 1.34}, {@code
 *       1.34.4} or {@code v1.34.4}; default: the newest); with {@code capstan.k8s.kubeconfig}, the
 *       version that control plane must report;
 *   <li>{@code capstan.it.skip} / {@code CAPSTAN_IT_SKIP}: {@code true} (or empty) skips the
 *       control-plane tests with a message; refused (a failure) when {@code CI=true};
 *   <li>{@code capstan.controlPlane.scripts}: the folder with {@code start.sh} (default: {@code
 *       testing/control-plane} found upwards from the working directory);
 *   <li>{@code capstan.controlPlane.stateDir}: where start.sh keeps PKI, kubeconfig and logs
 *       (default: {@code target/control-plane}).
 * </ul>
 *
 * @param externalKubeconfig the kubeconfig of a running control plane to use instead
 * @param k8sVersion the Kubernetes version asked for, if any
 * @param skip whether the user opted out of the control-plane tests
 * @param ci whether this runs under CI ({@code CI=true}), where opting out is refused
 * @param scriptDir the folder with build.sh, start.sh and stop.sh
 * @param stateDir the state folder for start.sh
 */
record ControlPlaneSettings(
    Optional<Path> externalKubeconfig,
    Optional<String> k8sVersion,
    boolean skip,
    boolean ci,
    Path scriptDir,
    Path stateDir) {

  ControlPlaneSettings {
    requireNonNull(externalKubeconfig, "externalKubeconfig");
    requireNonNull(k8sVersion, "k8sVersion");
    requireNonNull(scriptDir, "scriptDir");
    requireNonNull(stateDir, "stateDir");
  }

  /** Reads the settings of this JVM. */
  static ControlPlaneSettings fromEnvironment() {
    return from(System::getProperty, System::getenv);
  }

  static ControlPlaneSettings from(
      Function<String, @Nullable String> properties, Function<String, @Nullable String> env) {
    Optional<Path> kubeconfig =
        firstNonBlank(properties.apply("capstan.k8s.kubeconfig"), env.apply("CAPSTAN_KUBECONFIG"))
            .map(Path::of);
    Optional<String> version =
        firstNonBlank(properties.apply("capstan.k8s.version"), env.apply("CAPSTAN_K8S_VERSION"));
    String skipValue = properties.apply("capstan.it.skip");
    if (skipValue == null) {
      skipValue = env.apply("CAPSTAN_IT_SKIP");
    }
    boolean skip =
        skipValue != null && (skipValue.isBlank() || skipValue.trim().equalsIgnoreCase("true"));
    boolean ci =
        Optional.ofNullable(env.apply("CI"))
            .map(v -> v.toLowerCase(Locale.ROOT))
            .filter(v -> v.equals("true") || v.equals("1"))
            .isPresent();
    Path cwd = Path.of("").toAbsolutePath();
    Path scripts =
        firstNonBlank(properties.apply("capstan.controlPlane.scripts"), null)
            .map(Path::of)
            .orElseGet(() -> findScripts(cwd));
    Path state =
        firstNonBlank(properties.apply("capstan.controlPlane.stateDir"), null)
            .map(Path::of)
            .orElseGet(() -> cwd.resolve("target/control-plane"));
    return new ControlPlaneSettings(
        kubeconfig,
        version,
        skip,
        ci,
        scripts.toAbsolutePath().normalize(),
        state.toAbsolutePath());
  }

  private static Optional<String> firstNonBlank(@Nullable String first, @Nullable String second) {
    if (first != null && !first.isBlank()) {
      return Optional.of(first.trim());
    }
    if (second != null && !second.isBlank()) {
      return Optional.of(second.trim());
    }
    return Optional.empty();
  }

  private static Path findScripts(Path from) {
    for (Path dir = from; dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("testing/control-plane");
      if (Files.isRegularFile(candidate.resolve("start.sh"))) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "cannot find testing/control-plane/start.sh above "
            + from
            + "; set -Dcapstan.controlPlane.scripts=<folder>");
  }
}
