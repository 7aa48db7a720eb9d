package dev.capstan.common;

import org.jspecify.annotations.Nullable;

/**
 * The root of every exception Capstan throws: a host catches this one type to handle any Capstan
 * failure, and a subtype where it acts on one separately. Unchecked. The release engine's errors
 * are {@code dev.capstan.release.error.ReleaseException}s, the platform update's {@code
 * dev.capstan.update.UpdateException}s, a refused input document an {@link
 * InvalidDocumentException}. Every message names the object, the rule and the bad value, {@link
 * Escapes escaped}, and holds no secret value.
 */
public abstract class CapstanException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with a message.
   *
   * @param message what went wrong
   */
  protected CapstanException(String message) {
    super(message);
  }

  /**
   * An exception with a message and the lower-level failure behind it.
   *
   * @param message what went wrong
   * @param cause the underlying failure, or null
   */
  protected CapstanException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
