package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

/**
 * An object a release revision owns, with the content hash it applied.
 *
 * @param ref the object
 * @param contentHash the hash of the spec applied
 */
public record OwnedResource(ResourceRef ref, String contentHash) {
  /** Requires both parts. */
  public OwnedResource {
    requireNonNull(ref, "ref");
    requireNonNull(contentHash, "contentHash");
  }
}
