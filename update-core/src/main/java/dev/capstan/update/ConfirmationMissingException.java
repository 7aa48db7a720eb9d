package dev.capstan.update;

/** Confirmation was needed but there is no terminal to ask, and the update was not confirmed. */
public final class ConfirmationMissingException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with the standard message. */
  public ConfirmationMissingException() {
    this(
        "confirmation required but stdin is not a terminal; review the plan and confirm the update"
            + " in advance to apply it");
  }

  /**
   * Creates the exception with a specific message.
   *
   * @param message what to do, in the caller's terms (a command line names its flags)
   */
  public ConfirmationMissingException(String message) {
    super(message);
  }
}
