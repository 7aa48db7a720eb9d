package dev.capstan.release.codec;

import dev.capstan.release.error.ReleaseException;
import org.jspecify.annotations.Nullable;

/** A plan file that is not a plan of a supported format version: nothing was cast. */
public final class PlanFormatException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** An exception saying what is wrong with the plan file. */
  public PlanFormatException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
