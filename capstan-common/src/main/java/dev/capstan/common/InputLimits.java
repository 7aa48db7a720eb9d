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
 */
public record InputLimits(int maxBytes, int maxDepth, int maxAliases, int maxDocuments) {
  /** The default largest input: 4 MiB. */
  public static final int DEFAULT_MAX_BYTES = 4 << 20;

  /** The default deepest nesting: 100 levels (Kubernetes CRD schemas stay well below). */
  public static final int DEFAULT_MAX_DEPTH = 100;

  /** The default most aliases per input: 20. */
  public static final int DEFAULT_MAX_ALIASES = 20;

  /** Checks every bound is positive. */
  public InputLimits {
    positive(maxBytes, "maxBytes");
    positive(maxDepth, "maxDepth");
    if (maxAliases < 0) {
      throw new IllegalArgumentException("maxAliases must be at least 0: " + maxAliases);
    }
    positive(maxDocuments, "maxDocuments");
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
    return new InputLimits(bytes, maxDepth, maxAliases, maxDocuments);
  }

  /**
   * A copy with another nesting limit.
   *
   * @param depth the deepest nesting
   * @return the copy
   */
  public InputLimits withMaxDepth(int depth) {
    return new InputLimits(maxBytes, depth, maxAliases, maxDocuments);
  }

  /**
   * A copy with another alias limit.
   *
   * @param aliases the most aliases
   * @return the copy
   */
  public InputLimits withMaxAliases(int aliases) {
    return new InputLimits(maxBytes, maxDepth, aliases, maxDocuments);
  }

  /**
   * A copy with another document limit.
   *
   * @param documents the most documents
   * @return the copy
   */
  public InputLimits withMaxDocuments(int documents) {
    return new InputLimits(maxBytes, maxDepth, maxAliases, documents);
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
