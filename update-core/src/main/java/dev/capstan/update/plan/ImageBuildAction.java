package dev.capstan.update.plan;

import static java.util.Objects.requireNonNull;

/**
 * One unique image an update with builds enabled builds or reuses.
 *
 * @param component the (first) component using the image
 * @param image the image reference
 * @param action build or reuse
 * @param reason why, for example {@code target tag missing from registry}
 */
public record ImageBuildAction(String component, String image, ImageAction action, String reason) {

  /** Validates the fields. */
  public ImageBuildAction {
    requireNonNull(component, "component");
    requireNonNull(image, "image");
    requireNonNull(action, "action");
    requireNonNull(reason, "reason");
  }

  /**
   * Creates a build entry.
   *
   * @param component the component
   * @param image the image
   * @param reason why it is built
   * @return the entry
   */
  public static ImageBuildAction build(String component, String image, String reason) {
    return new ImageBuildAction(component, image, ImageAction.BUILD, reason);
  }

  /**
   * Creates a reuse entry.
   *
   * @param component the component
   * @param image the image
   * @param reason why it is reused
   * @return the entry
   */
  public static ImageBuildAction reuse(String component, String image, String reason) {
    return new ImageBuildAction(component, image, ImageAction.REUSE, reason);
  }
}
