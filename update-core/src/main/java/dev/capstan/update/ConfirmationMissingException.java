package dev.capstan.update;

/** Confirmation was needed but there is no terminal to ask and {@code --yes} was not given. */
public final class ConfirmationMissingException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with the standard message. */
  public ConfirmationMissingException() {
    super(
        "confirmation required but stdin is not a terminal; review the plan (--dry-run) and pass"
            + " --yes to apply it");
  }
}
