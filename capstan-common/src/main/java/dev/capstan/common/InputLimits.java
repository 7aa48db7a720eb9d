package dev.capstan.common;

/**
 * The bounds a document must stay within before it is parsed into a tree: checked while reading, so
 * an oversized, deeply nested or alias-heavy input is refused in bounded time and memory.
 *
 * @param maxBytes the largest input, in bytes (also the largest total of scalar characters after
 *     aliases are expanded)
 * @param maxDepth the deepest nesting of mappings and sequences
 * @param maxAliases the most aliases ({@code *name}) per input
 * @param maxDocuments the most YAML documents in one input
 * @param maxNodes the most nodes (mappings, sequences, keys, scalars and aliases) the trees of one
 *     input may hold, counted as they are built: what a tree costs in memory follows its nodes, not
 *     its bytes ({@code [{},{}]} takes some 20 bytes of heap per byte of text, a long string one);
 *     {@link #UNBOUNDED_NODES} by default. The YAML reader counts them ({@link
 *     StrictDocuments#readYaml}, JSON text too when read as YAML); the JSON readers ({@code
 *     readJson}, {@code readOne}) do not, and are bounded by bytes and depth only
 */
public record InputLimits(
    int maxBytes, int maxDepth, int maxAliases, int maxDocuments, int maxNodes) {
  /** The default largest input: 4 MiB. */
  public static final int DEFAULT_MAX_BYTES = 4 << 20;

  /** The default deepest nesting: 100 levels (Kubernetes CRD schemas stay well below). */
  public static final int DEFAULT_MAX_DEPTH = 100;

  /** The default most aliases per input: 20. */
  public static final int DEFAULT_MAX_ALIASES = 20;

  /** The default most nodes: no bound but {@link #maxBytes}. */
  public static final int UNBOUNDED_NODES = Integer.MAX_VALUE;

  /** Checks every bound is positive (the nodes at least 0). */
  public InputLimits {
    positive(maxBytes, "maxBytes");
    positive(maxDepth, "maxDepth");
    if (maxAliases < 0) {
      throw new IllegalArgumentException("maxAliases must be at least 0: " + maxAliases);
    }
    positive(maxDocuments, "maxDocuments");
    if (maxNodes < 0) {
      throw new IllegalArgumentException("maxNodes must be at least 0: " + maxNodes);
    }
  }

  /**
   * Limits without a bound on nodes.
   *
   * @param maxBytes the largest input, in bytes
   * @param maxDepth the deepest nesting of mappings and sequences
   * @param maxAliases the most aliases per input
   * @param maxDocuments the most YAML documents in one input
   */
  public InputLimits(int maxBytes, int maxDepth, int maxAliases, int maxDocuments) {
    this(maxBytes, maxDepth, maxAliases, maxDocuments, UNBOUNDED_NODES);
  }

  /**
   * Limits for a file holding one document: 4 MiB, 100 levels, 20 aliases.
   *
   * @return the limits
   */
  public static InputLimits oneDocument() {
    return new InputLimits(DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_ALIASES, 1);
  }

  /**
   * A copy with another size limit.
   *
   * @param bytes the largest input
   * @return the copy
   */
  public InputLimits withMaxBytes(int bytes) {
    return new InputLimits(bytes, maxDepth, maxAliases, maxDocuments, maxNodes);
  }

  /**
   * A copy with another nesting limit.
   *
   * @param depth the deepest nesting
   * @return the copy
   */
  public InputLimits withMaxDepth(int depth) {
    return new InputLimits(maxBytes, depth, maxAliases, maxDocuments, maxNodes);
  }

  /**
   * A copy with another alias limit.
   *
   * @param aliases the most aliases
   * @return the copy
   */
  public InputLimits withMaxAliases(int aliases) {
    return new InputLimits(maxBytes, maxDepth, aliases, maxDocuments, maxNodes);
  }

  /**
   * A copy with another document limit.
   *
   * @param documents the most documents
   * @return the copy
   */
  public InputLimits withMaxDocuments(int documents) {
    return new InputLimits(maxBytes, maxDepth, maxAliases, documents, maxNodes);
  }

  /**
   * A copy with another node limit.
   *
   * @param nodes the most nodes, at least 0
   * @return the copy
   */
  public InputLimits withMaxNodes(int nodes) {
    return new InputLimits(maxBytes, maxDepth, maxAliases, maxDocuments, nodes);
  }

  /**
   * Renders a byte count for a message: {@code 4 MiB}, {@code 256 KiB} or {@code 1000 bytes}.
   *
   * @param bytes the count
   * @return the text
   */
  public static String human(long bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return bytes / (1 << 20) + " MiB";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return bytes / (1 << 10) + " KiB";
    }
    return bytes + " bytes";
  }

  private static void positive(int value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }
}
