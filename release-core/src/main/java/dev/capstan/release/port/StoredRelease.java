package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;

/**
 * A release record as stored, with the store's version token for compare-and-set.
 *
 * @param release the record
 * @param version the store's version of it (a resourceVersion on Kubernetes)
 */
public record StoredRelease(Release release, String version) {
  /** Requires both parts. */
  public StoredRelease {
    requireNonNull(release, "release");
    requireNonNull(version, "version");
  }
}
