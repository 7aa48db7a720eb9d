package dev.capstan.release.error;

import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;

/**
 * An uninstall stopped at an object; the record stays {@code UNINSTALLING} and a retry continues
 * where this one stopped.
 */
public final class UninstallFailedException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // records are immutable values; serialising one is not supported
  private final Release release;

  @SuppressWarnings("serial") // refs are immutable values; serialising one is not supported
  private final ResourceRef failedAt;

  /** An exception naming the object the uninstall stopped at. */
  public UninstallFailedException(Release release, ResourceRef failedAt, Throwable cause) {
    super(
        "uninstall of release "
            + release.qualifiedName()
            + " stopped at "
            + failedAt.key()
            + ": "
            + cause.getMessage()
            + "; the release stays uninstalling, run uninstall again to continue",
        cause);
    this.release = release;
    this.failedAt = failedAt;
  }

  /** The record as left ({@code UNINSTALLING}). */
  public Release release() {
    return release;
  }

  /** The object the uninstall stopped at. */
  public ResourceRef failedAt() {
    return failedAt;
  }
}
