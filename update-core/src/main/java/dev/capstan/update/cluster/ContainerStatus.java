package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/**
 * One container status of a running pod.
 *
 * @param name the container name
 * @param ready whether the container is ready
 * @param imageId the runtime's image id, for example {@code docker-pullable://reg/app@sha256:...};
 *     empty when unknown
 */
public record ContainerStatus(String name, boolean ready, String imageId) {
  /** Validates the fields. */
  public ContainerStatus {
    requireNonNull(name, "name");
    requireNonNull(imageId, "imageId");
  }
}
