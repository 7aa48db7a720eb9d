package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One container of a Deployment's pod template.
 *
 * @param name the container name
 * @param image the image reference as written in the spec
 * @param env the environment variables, in spec order
 */
public record ContainerState(String name, String image, List<EnvVar> env) {
  /** Validates the fields and copies the list. */
  public ContainerState {
    requireNonNull(name, "name");
    requireNonNull(image, "image");
    env = List.copyOf(env);
  }

  /**
   * Creates a container without environment variables.
   *
   * @param name the container name
   * @param image the image
   * @return the container
   */
  public static ContainerState of(String name, String image) {
    return new ContainerState(name, image, List.of());
  }

  /**
   * Returns the value of an environment variable.
   *
   * @param envName the variable name
   * @return its value, or empty when the variable is not set
   */
  public Optional<String> envValue(String envName) {
    return env.stream().filter(e -> e.name().equals(envName)).map(EnvVar::value).findFirst();
  }

  /**
   * Returns a copy with another image.
   *
   * @param newImage the image
   * @return the copy
   */
  public ContainerState withImage(String newImage) {
    return new ContainerState(name, newImage, env);
  }

  /**
   * Returns a copy with one environment variable set (replaced in place, or appended), keeping
   * every other variable, as a strategic-merge patch does.
   *
   * @param envName the variable name
   * @param value its value
   * @return the copy
   */
  public ContainerState withEnv(String envName, String value) {
    List<EnvVar> out = new ArrayList<>(env);
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).name().equals(envName)) {
        out.set(i, EnvVar.of(envName, value));
        return new ContainerState(name, image, out);
      }
    }
    out.add(EnvVar.of(envName, value));
    return new ContainerState(name, image, out);
  }
}
