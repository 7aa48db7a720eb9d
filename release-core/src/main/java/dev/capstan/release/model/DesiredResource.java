package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.release.internal.Names;

/**
 * One object a release wants, by reference, content hash and apply wave: all the planner needs to
 * know of it.
 *
 * @param ref the object
 * @param contentHash {@link ContentHash#of(Manifest)} of it
 * @param wave its apply wave ({@link Waves}); 0 unless the object asks for another
 */
public record DesiredResource(ResourceRef ref, String contentHash, int wave) {
  /** Requires a non-shared kind and a well-formed hash. */
  public DesiredResource {
    requireNonNull(ref, "ref");
    requireNonNull(contentHash, "contentHash");
    if (ref.kind().shared()) {
      throw new IllegalArgumentException(
          "resources: "
              + ref.kind()
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
    Waves.check(wave, ref.key());
  }

  /** A desired object in wave 0. */
  public DesiredResource(ResourceRef ref, String contentHash) {
    this(ref, contentHash, 0);
  }
}
