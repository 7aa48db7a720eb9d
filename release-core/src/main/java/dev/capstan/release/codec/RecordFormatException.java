package dev.capstan.release.codec;

import dev.capstan.release.error.ReleaseException;
import org.jspecify.annotations.Nullable;

/** Stored bytes are not a release record this library can read. */
public final class RecordFormatException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** An exception with a message naming what is wrong. */
  public RecordFormatException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
