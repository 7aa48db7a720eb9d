package dev.capstan.release.error;

import dev.capstan.common.Escapes;
import org.jspecify.annotations.Nullable;

/** No record of the release (or of the requested revision) exists. */
public final class ReleaseNotFoundException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  private final String release;
  private final @Nullable Integer revision;

  /** The release {@code namespace/name} (and, if given, the revision) is not recorded. */
  public ReleaseNotFoundException(String release, @Nullable Integer revision) {
    super(
        revision == null
            ? "release " + Escapes.escape(release) + " not found"
            : "release " + Escapes.escape(release) + " has no revision " + revision);
    this.release = release;
    this.revision = revision;
  }

  /** The release, {@code namespace/name}. */
  public String release() {
    return release;
  }

  /** The missing revision, or {@code null} when the release itself is missing. */
  public @Nullable Integer revision() {
    return revision;
  }
}
