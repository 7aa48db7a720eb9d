package dev.capstan.update;

/** Neither a target version nor a release manifest was given: update never picks one itself. */
public final class TargetRequiredException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with the standard message. */
  public TargetRequiredException() {
    super(
        "update target required: name a target version or a release manifest; update never picks"
            + " a release implicitly");
  }

  /**
   * Creates the exception with a specific message.
   *
   * @param message why no target could be resolved, in the caller's terms (a command line names its
   *     flags)
   */
  public TargetRequiredException(String message) {
    super(message);
  }
}
