package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

/**
 * The ownership stamp written on every object a release applies: which release (namespace, name,
 * id), which revision, the content hash of what was applied, and the manager ({@code capstan}).
 *
 * @param owner the owning release
 * @param revision the revision that last applied the object
 * @param contentHash the content hash of the applied spec
 * @param manager always {@link #MANAGER} for stamps Capstan writes
 */
public record OwnershipStamp(
    ReleaseIdentity owner, int revision, String contentHash, String manager) {
  /** The manager name Capstan stamps. */
  public static final String MANAGER = "capstan";

  /** Requires every part and a positive revision. */
  public OwnershipStamp {
    requireNonNull(owner, "owner");
    requireNonNull(contentHash, "contentHash");
    requireNonNull(manager, "manager");
    if (revision < 1) {
      throw new IllegalArgumentException("stamp revision must be at least 1: " + revision);
    }
  }

  /** A stamp by {@code owner} at {@code revision} for content {@code contentHash}. */
  public static OwnershipStamp of(ReleaseIdentity owner, int revision, String contentHash) {
    return new OwnershipStamp(owner, revision, contentHash, MANAGER);
  }

  /** Whether this stamp names {@code release} as owner (namespace, name and id all equal). */
  public boolean ownedBy(ReleaseIdentity release) {
    return owner.equals(release);
  }
}
