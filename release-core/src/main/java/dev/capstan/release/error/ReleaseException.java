package dev.capstan.release.error;

import dev.capstan.common.CapstanException;
import org.jspecify.annotations.Nullable;

/**
 * The base of the exceptions the release engine's own rules throw. Subclasses exist where callers
 * act on them separately: {@link InvalidReleaseException}, {@link ReleaseConflictException}, {@link
 * ReleaseLockedException}, {@link ReleaseNotFoundException}, {@link CastFailedException}, {@link
 * UninstallFailedException}, {@link StaleRecordException}, {@link StalePlanException}. A failed
 * port call is a {@link dev.capstan.common.ClusterException}, shared with the platform update;
 * catch {@link CapstanException} for any Capstan failure.
 */
public class ReleaseException extends CapstanException {
  private static final long serialVersionUID = 1L;

  /** An exception with a message. */
  public ReleaseException(String message) {
    super(message);
  }

  /** An exception with a message and a cause. */
  public ReleaseException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
