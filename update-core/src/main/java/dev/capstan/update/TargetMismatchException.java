package dev.capstan.update;

/** The requested target version differs from the version the release manifest declares. */
public final class TargetMismatchException extends UpdateException {
  private static final long serialVersionUID = 1L;

  private final String requested;
  private final String manifestVersion;

  /**
   * Creates the exception, naming the requested version {@code target version} in the message.
   *
   * @param requested the version asked for
   * @param manifestVersion the manifest's {@code version}
   * @param source where the manifest came from
   */
  public TargetMismatchException(String requested, String manifestVersion, String source) {
    this(requested, manifestVersion, source, "target version");
  }

  /**
   * Creates the exception, naming the requested version as the caller does.
   *
   * @param requested the version asked for
   * @param manifestVersion the manifest's {@code version}
   * @param source where the manifest came from
   * @param requestedAs what the message calls the requested version, for example {@code --to} on a
   *     command line
   */
  public TargetMismatchException(
      String requested, String manifestVersion, String source, String requestedAs) {
    super(
        requestedAs
            + " "
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
   * @return the requested version
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
