package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

/**
 * One version of a CustomResourceDefinition, as {@code spec.versions[]} declares it.
 *
 * @param name the version name, for example {@code v1}
 * @param served whether the API server serves it
 * @param storage whether objects are persisted at it (exactly one version is the storage version)
 */
public record CrdVersion(String name, boolean served, boolean storage) {
  /** Validates the name. */
  public CrdVersion {
    requireNonNull(name, "name");
  }
}
