package dev.capstan.update;

/** The requested target version differs from the version the release manifest declares. */
public final class TargetMismatchException extends UpdateException {
  private static final long serialVersionUID = 1L;

  private final String requested;
  private final String manifestVersion;

  /**
   * Creates the exception.
   *
   * @param requested the version asked for ({@code --to})
   * @param manifestVersion the manifest's {@code version}
   * @param source where the manifest came from
   */
  public TargetMismatchException(String requested, String manifestVersion, String source) {
    super(
        "--to "
            + requested
            + " does not match release manifest "
            + source
            + " version "
            + manifestVersion
            + "; refusing to change the target silently");
    this.requested = requested;
    this.manifestVersion = manifestVersion;
  }

  /**
   * Returns the version asked for.
   *
   * @return the {@code --to} value
   */
  public String requested() {
    return requested;
  }

  /**
   * Returns the version the manifest declares.
   *
   * @return the manifest's {@code version}
   */
  public String manifestVersion() {
    return manifestVersion;
  }
}
