package dev.capstan.update.build;

import static java.util.Objects.requireNonNull;

/**
 * One image to build.
 *
 * @param component the catalog component
 * @param image the image reference to tag the build with
 * @param platform the target platform, for example {@code linux/amd64}
 * @param source the source checkout to build from
 */
public record BuildRequest(String component, String image, String platform, String source) {
  /** Validates the fields. */
  public BuildRequest {
    requireNonNull(component, "component");
    requireNonNull(image, "image");
    requireNonNull(platform, "platform");
    requireNonNull(source, "source");
  }
}
