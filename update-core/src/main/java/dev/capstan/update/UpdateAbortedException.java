package dev.capstan.update;

/** The operator declined the confirmation prompt; nothing was changed. */
public final class UpdateAbortedException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with the standard message. */
  public UpdateAbortedException() {
    super("update aborted; no changes were made");
  }
}
