package dev.capstan.update;

/** The cluster does not hold the platform: the catalog's installed-check deployment is missing. */
public final class NotInstalledException extends UpdateException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which deployment is missing and what to do
   */
  public NotInstalledException(String message) {
    super(message);
  }
}
