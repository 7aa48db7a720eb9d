package dev.capstan.release.file;

import dev.capstan.common.InputLimits;

/**
 * The heap one release may take while it is read (and then held, planned and cast), estimated from
 * what it reads: each character of its texts costs {@code charBytes}, each node of its documents (a
 * mapping, a sequence, a key or a scalar, {@link InputLimits#maxNodes()}) {@code nodeBytes}. A tree
 * costs by its nodes, not its bytes ({@code [{},{}]} takes some 20 times its size when parsed,
 * {@code - a} less than its size), so the nodes are counted as they are built and no more is built
 * once over ({@link ReleaseTooLargeException}). The library reads within {@link #UNBOUNDED}; a host
 * that reads several releases at once, each on its own share of one heap (the Release controller's
 * workers), gives each its share.
 *
 * @param bytes the estimated heap a release may take, in bytes
 * @param nodeBytes the heap a node is taken to cost
 * @param charBytes the heap a character of text is taken to cost
 */
public record HeapBudget(long bytes, int nodeBytes, int charBytes) {
  /** No budget: releases are held to the byte and document limits of {@link ReleaseFiles} only. */
  public static final HeapBudget UNBOUNDED = new HeapBudget(Long.MAX_VALUE, 0, 0);

  /** Checks the bytes are positive and the costs not negative. */
  public HeapBudget {
    if (bytes <= 0) {
      throw new IllegalArgumentException("bytes must be positive: " + bytes);
    }
    if (nodeBytes < 0 || charBytes < 0) {
      throw new IllegalArgumentException(
          "costs must be at least 0: nodeBytes " + nodeBytes + ", charBytes " + charBytes);
    }
  }

  /**
   * The estimated heap of {@code chars} characters of text and {@code nodes} nodes: {@code chars *
   * charBytes + nodes * nodeBytes}, at most {@link Long#MAX_VALUE}.
   *
   * @param chars the characters of text read
   * @param nodes the nodes built
   * @return the estimate, in bytes
   */
  public long cost(long chars, long nodes) {
    long text = Math.multiplyHigh(chars, charBytes) != 0 ? Long.MAX_VALUE : chars * charBytes;
    long trees = Math.multiplyHigh(nodes, nodeBytes) != 0 ? Long.MAX_VALUE : nodes * nodeBytes;
    long sum = text + trees;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /**
   * Whether {@code chars} characters of text and {@code nodes} nodes fit.
   *
   * @param chars the characters of text read
   * @param nodes the nodes built
   * @return {@code cost(chars, nodes) <= bytes}
   */
  public boolean fits(long chars, long nodes) {
    return cost(chars, nodes) <= bytes;
  }

  /**
   * The most nodes that may still be built once {@code chars} characters and {@code nodes} nodes
   * are, within {@link InputLimits#maxNodes()}'s range: 0 when none fits.
   *
   * @param chars the characters of text read
   * @param nodes the nodes built
   * @return the nodes left, at most {@link InputLimits#UNBOUNDED_NODES}
   */
  public int nodesLeft(long chars, long nodes) {
    if (!fits(chars, nodes)) {
      return 0;
    }
    if (nodeBytes == 0) {
      return InputLimits.UNBOUNDED_NODES;
    }
    return (int) Math.min(InputLimits.UNBOUNDED_NODES, (bytes - cost(chars, nodes)) / nodeBytes);
  }
}
