package dev.capstan.update;

import java.util.List;

/**
 * Update options or the component selection are invalid (an unknown {@code --only} name, an output
 * format other than text or json, a non-positive timeout, ...). Messages name the flag.
 */
public final class InvalidOptionsException extends InvalidInputException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param problems every problem found
   */
  public InvalidOptionsException(List<String> problems) {
    super("update options", problems);
  }
}
