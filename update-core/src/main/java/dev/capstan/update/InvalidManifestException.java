package dev.capstan.update;

import java.util.List;

/** A release manifest (or its CRD bundle) broke one or more rules; nothing was applied. */
public final class InvalidManifestException extends InvalidInputException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param source where the manifest came from, for example {@code platform-manifest.yaml}
   * @param problems every problem found, each with its field path
   */
  public InvalidManifestException(String source, List<String> problems) {
    super("release manifest " + source, problems);
  }
}
