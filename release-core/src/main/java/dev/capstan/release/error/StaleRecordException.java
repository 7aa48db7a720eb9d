package dev.capstan.release.error;

/**
 * A compare-and-set of a release record lost: someone else wrote the record since it was read, or
 * the revision being created already exists.
 */
public final class StaleRecordException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** An exception naming the release, the revision and what was expected. */
  public StaleRecordException(String release, int revision, String detail) {
    super("release " + release + " revision " + revision + " was changed concurrently: " + detail);
  }
}
