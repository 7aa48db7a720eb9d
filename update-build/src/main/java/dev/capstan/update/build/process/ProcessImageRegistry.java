package dev.capstan.update.build.process;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.ImageBuildException;
import dev.capstan.update.build.ImageRegistry;
import java.util.List;
import java.util.Locale;

/**
 * Probes a registry with {@code docker manifest inspect <image>}: exit 0 means present; output
 * saying the manifest or name is unknown (or 404) means absent; anything else (for example {@code
 * unauthorized}) is an error, never "absent".
 */
public final class ProcessImageRegistry implements ImageRegistry {
  private static final List<String> NOT_FOUND =
      List.of(
          "manifest unknown",
          "not found",
          "no such manifest",
          "does not exist",
          "name unknown",
          "404");

  private final CommandRunner runner;

  /**
   * Creates the registry probe.
   *
   * @param runner runs {@code docker}
   */
  public ProcessImageRegistry(CommandRunner runner) {
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public boolean exists(String image) {
    CommandResult result = runner.run(List.of("docker", "manifest", "inspect", image));
    if (result.succeeded()) {
      return true;
    }
    if (isNotFound(result.output())) {
      return false;
    }
    throw new ImageBuildException(
        "registry probe for "
            + image
            + " failed (exit "
            + result.exitCode()
            + "): "
            + result.output().strip());
  }

  /**
   * Tells whether registry output means the image does not exist.
   *
   * @param output the probe's output
   * @return true for "manifest unknown", "not found", "404" and the like
   */
  static boolean isNotFound(String output) {
    String lower = output.toLowerCase(Locale.ROOT);
    return NOT_FOUND.stream().anyMatch(lower::contains);
  }
}
