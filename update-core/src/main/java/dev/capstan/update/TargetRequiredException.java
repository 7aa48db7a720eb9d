package dev.capstan.update;

/** Neither a target version nor a release manifest was given: update never picks one itself. */
public final class TargetRequiredException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with the standard message. */
  public TargetRequiredException() {
    super(
        "update target required: pass --to <version> or --release-manifest <file>; update never"
            + " picks a release implicitly");
  }

  /**
   * Creates the exception with a specific message.
   *
   * @param message why no target could be resolved
   */
  public TargetRequiredException(String message) {
    super(message);
  }
}
