package dev.capstan.update.build;

/**
 * Builds and pushes images. Implementations must stop promptly when their thread is interrupted (a
 * sibling build failed) and throw an {@link dev.capstan.update.UpdateException} on failure.
 */
public interface ImageBuilder {

  /**
   * Tells whether this builder knows how to build a component.
   *
   * @param component the catalog component
   * @return true when {@link #build} can handle it
   */
  default boolean canBuild(String component) {
    return true;
  }

  /**
   * Builds one image.
   *
   * @param request what to build
   */
  void build(BuildRequest request);

  /**
   * Pushes a built image.
   *
   * @param image the image reference
   */
  void push(String image);
}
