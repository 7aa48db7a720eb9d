package dev.capstan.release.file;

import dev.capstan.release.error.ReleaseException;

/**
 * A release whose reading would take more heap than its {@link HeapBudget}: refused at the first
 * text or document over, before the rest is read, with what was counted up to there. The message
 * names the place, the estimate and the budget; a host adds its own advice (the Release controller:
 * which flag or memory limit gives a release more).
 */
public final class ReleaseTooLargeException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final String at;
  private final long chars;
  private final long nodes;

  @SuppressWarnings("serial") // a record of three numbers
  private final HeapBudget budget;

  /**
   * Creates the exception.
   *
   * @param source the release's input, as {@link InvalidReleaseFileException#source()}
   * @param at the first text or document over: {@code (configmap web key all.yaml#2)}
   * @param chars the characters of text read up to and with it
   * @param nodes the nodes counted up to there: at least so many would be built
   * @param budget the budget passed
   */
  public ReleaseTooLargeException(
      String source, String at, long chars, long nodes, HeapBudget budget) {
    super(
        source
            + ": "
            + at
            + ": reading the release would take at least "
            + budget.cost(chars, nodes)
            + " bytes of heap ("
            + chars
            + " characters of text at "
            + budget.charBytes()
            + " bytes each and "
            + nodes
            + " nodes, mappings, sequences, keys and scalars, at "
            + budget.nodeBytes()
            + " bytes each); the limit is "
            + budget.bytes()
            + " bytes per release");
    this.source = source;
    this.at = at;
    this.chars = chars;
    this.nodes = nodes;
    this.budget = budget;
  }

  /** The release's input, as {@link InvalidReleaseFileException#source()}. */
  public String source() {
    return source;
  }

  /** The first text or document over: {@code (configmap web key all.yaml#2)}. */
  public String at() {
    return at;
  }

  /** The characters of text read up to and with the one over. */
  public long chars() {
    return chars;
  }

  /** The nodes counted up to where reading stopped: at least so many would be built. */
  public long nodes() {
    return nodes;
  }

  /** The estimated heap: at least {@code budget().cost(chars(), nodes())} bytes. */
  public long estimate() {
    return budget.cost(chars, nodes);
  }

  /** The budget passed. */
  public HeapBudget budget() {
    return budget;
  }
}
