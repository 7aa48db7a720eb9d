package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import org.jspecify.annotations.Nullable;

/**
 * An object as observed in the cluster.
 *
 * @param ref the object
 * @param spec its content as the adapter reads it back (used as the pre-image for atomic revert),
 *     or {@code null} when the adapter cannot (shared kinds)
 * @param stamp the ownership stamp it carries, or {@code null} when unowned
 * @param observedHash the content hash of what is live now, or {@code null} when unknown; differs
 *     from the stamp's hash when the object was edited behind the release's back
 */
public record LiveObject(
    ResourceRef ref,
    @Nullable ResourceSpec spec,
    @Nullable OwnershipStamp stamp,
    @Nullable String observedHash) {

  /** Requires the ref; a spec must match it. */
  public LiveObject {
    requireNonNull(ref, "ref");
    if (spec != null && !spec.ref().equals(ref)) {
      throw new IllegalArgumentException(
          "live object spec " + spec.ref().key() + " does not match ref " + ref.key());
    }
  }

  /** A shared object (namespace, storage class) that exists. */
  public static LiveObject present(ResourceRef ref) {
    return new LiveObject(ref, null, null, null);
  }
}
