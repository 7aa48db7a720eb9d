package dev.capstan.release.error;

/**
 * An operation over a recorded revision (an uninstall, {@code release test}) refused to run hooks
 * its record lists outside the release's namespace that the caller did not name ({@link
 * dev.capstan.release.plan.HookPlan#refusal}); nothing was written.
 */
public final class HookRefusedException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with the refusal's message.
   *
   * @param message the refusal, naming each hook and how to allow it
   */
  public HookRefusedException(String message) {
    super(message);
  }
}
