package dev.capstan.release.error;

import dev.capstan.release.result.CastResult;

/**
 * A cast started and failed. {@link #result()} holds the revision as recorded ({@code FAILED}, with
 * the reason, and for atomic casts whether the revert was complete) and the plan.
 */
public final class CastFailedException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // results are immutable values; serialising one is not supported
  private final CastResult result;

  /** An exception carrying the failed result and its cause. */
  public CastFailedException(CastResult result, Throwable cause) {
    super(
        "release "
            + result.release().qualifiedName()
            + " revision "
            + result.release().revision()
            + " failed: "
            + result.release().failure(),
        cause);
    this.result = result;
  }

  /** The recorded revision and the plan. */
  public CastResult result() {
    return result;
  }
}
