package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.internal.Names;

/**
 * Which object a release retained at a ref: the uid the cluster gave it, as observed when the
 * release un-stamped it. A later cast re-adopts without {@code adopt} only the object with this
 * uid; another one created at the same name since is not the release's to take.
 *
 * @param ref the retained object
 * @param uid its uid when it was retained
 */
public record RetainedUid(ResourceRef ref, String uid) {
  /** Requires both parts. */
  public RetainedUid {
    requireNonNull(ref, "ref");
    Names.requireText(uid, "retainedUids[" + ref.key() + "].uid");
  }
}
