package dev.capstan.update;

import java.util.List;

/** A host-supplied component catalog broke one or more rules. */
public final class InvalidCatalogException extends InvalidInputException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param source where the catalog came from, for example {@code catalog.yaml}
   * @param problems every problem found, each with its field path
   */
  public InvalidCatalogException(String source, List<String> problems) {
    super("component catalog " + source, problems);
  }
}
