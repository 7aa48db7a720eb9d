package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

/**
 * Who a release is: its home namespace, name and stable id. Ownership is decided on all three, so a
 * release that was purged and installed again under the same name does not own its predecessor's
 * objects.
 *
 * @param namespace the release's home namespace
 * @param name the release name
 * @param id the id kept across every revision of this release
 */
public record ReleaseIdentity(String namespace, String name, String id) {
  /** Requires every part. */
  public ReleaseIdentity {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    requireNonNull(id, "id");
  }

  /** {@code namespace/name}. */
  public String qualifiedName() {
    return namespace + "/" + name;
  }

  @Override
  public String toString() {
    return qualifiedName() + " (id " + id + ")";
  }
}
