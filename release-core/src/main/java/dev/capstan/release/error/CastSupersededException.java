package dev.capstan.release.error;

/**
 * A cast stopped because a newer revision of its release was asked for while it ran (its caller's
 * supersession check answered {@code true}, see {@code ReleaseController.cast(Plan, Payloads,
 * BooleanSupplier)}): nothing more was written, and the revision is recorded {@code FAILED} with
 * this message. It is the cause of the {@link CastFailedException} the cast throws.
 */
public final class CastSupersededException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** An exception saying where the cast stopped. */
  public CastSupersededException(String message) {
    super(message);
  }
}
