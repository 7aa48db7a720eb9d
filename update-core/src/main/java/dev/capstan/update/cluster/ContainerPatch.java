package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/** One change to one container of a pod template: its image, or one env var's value. */
public sealed interface ContainerPatch {

  /**
   * Returns the container the change applies to.
   *
   * @return the container name
   */
  String container();

  /**
   * Returns the image the change writes.
   *
   * @return the image reference (the new image, or the env var's new value)
   */
  String image();

  /**
   * Sets a container's image.
   *
   * @param container the container name
   * @param image the new image
   */
  record SetImage(String container, String image) implements ContainerPatch {
    /** Validates the fields. */
    public SetImage {
      requireNonNull(container, "container");
      requireNonNull(image, "image");
    }
  }

  /**
   * Sets one env var of a container to an image reference, keeping every other env var.
   *
   * @param container the container name
   * @param envVar the variable name
   * @param image the new value
   */
  record SetEnv(String container, String envVar, String image) implements ContainerPatch {
    /** Validates the fields. */
    public SetEnv {
      requireNonNull(container, "container");
      requireNonNull(envVar, "envVar");
      requireNonNull(image, "image");
    }
  }
}
