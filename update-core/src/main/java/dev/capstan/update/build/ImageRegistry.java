package dev.capstan.update.build;

/** Tells whether an image is already in its registry. */
@FunctionalInterface
public interface ImageRegistry {

  /**
   * Looks an image up.
   *
   * @param image the image reference, with tag
   * @return true when the registry has it, false when it reports the image (or tag) unknown
   * @throws dev.capstan.update.ImageBuildException for any other failure (authentication, network)
   */
  boolean exists(String image);
}
