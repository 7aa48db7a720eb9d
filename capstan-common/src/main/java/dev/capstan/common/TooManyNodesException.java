package dev.capstan.common;

/**
 * A document whose trees would hold more nodes than {@link InputLimits#maxNodes()}: refused as it
 * is read, once the limit is passed, so no more than the limit is built. A reader that holds many
 * inputs to one budget (a release's) catches it to name its own limit.
 */
public final class TooManyNodesException extends InvalidDocumentException {
  private static final long serialVersionUID = 1L;

  private final int limit;

  /**
   * Creates the exception.
   *
   * @param limit the limit passed
   * @param position where: {@code " at line 3, column 7"}, or empty
   */
  public TooManyNodesException(int limit, String position) {
    super("holds more than " + limit + " nodes (the limit)" + position);
    this.limit = limit;
  }

  /**
   * The limit passed.
   *
   * @return the most nodes the input could hold
   */
  public int limit() {
    return limit;
  }
}
