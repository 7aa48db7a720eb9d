package dev.capstan.update;

import java.util.List;

/**
 * Update options or the component selection are invalid (an unknown name in {@code Selection.only},
 * an unknown opt-in group, ...). Each problem names the option; a command line names its flag
 * instead.
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
