package dev.capstan.common;

/**
 * An input file or document that is refused before it is used: too large, not a regular file, not
 * UTF-8, not valid YAML or JSON, nested too deeply, too many aliases or documents. The message
 * names the rule, the limit and, where there is one, the position ({@code line 3, column 7}); every
 * value it shows is {@link Escapes escaped}. Readers translate it into their own invalid-input
 * exception. A reader that answers a limit on nodes otherwise than any other problem catches {@link
 * TooManyNodesException}.
 */
public class InvalidDocumentException extends CapstanException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message the problem, naming the rule and the position
   */
  public InvalidDocumentException(String message) {
    super(message);
  }

  @Override
  public String getMessage() {
    return String.valueOf(super.getMessage());
  }
}
