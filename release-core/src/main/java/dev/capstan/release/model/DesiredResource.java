package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Names;

/**
 * One object a release wants, by reference and content hash: all the planner needs to know of it.
 *
 * @param ref the object
 * @param contentHash {@link ContentHash#of} of its spec
 */
public record DesiredResource(ResourceRef ref, String contentHash) {
  /** Requires a non-shared kind and a well-formed hash. */
  public DesiredResource {
    requireNonNull(ref, "ref");
    requireNonNull(contentHash, "contentHash");
    if (ref.type().shared()) {
      throw new IllegalArgumentException(
          "resources: "
              + ref.type()
              + " is a shared kind a release can only reference, not own: "
              + Escapes.quote(ref.key()));
    }
    if (!ContentHash.isValid(contentHash)) {
      throw new IllegalArgumentException(
          "resources["
              + ref.key()
              + "].contentHash must be sha256: and 64 hex digits: "
              + Names.quote(contentHash));
    }
  }
}
