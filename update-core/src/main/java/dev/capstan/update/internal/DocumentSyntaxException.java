package dev.capstan.update.internal;

import dev.capstan.common.CapstanException;

/** A document could not be read at all: a syntax error, a duplicate key, a limit exceeded. */
public final class DocumentSyntaxException extends CapstanException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong, with the position when known
   */
  public DocumentSyntaxException(String message) {
    super(message);
  }
}
