package dev.capstan.helm;

import dev.capstan.common.InputLimits;

/**
 * The bounds a Helm release record is decoded within, checked while decoding.
 *
 * @param maxEncodedBytes the largest base64 release data (a Secret or ConfigMap holds at most 1 MiB
 *     of data, so the default of 2 MiB only refuses what no API server stores)
 * @param maxInflatedBytes the largest JSON after base64 and gzip are undone; inflating stops past
 *     it, so a gzip bomb costs bounded memory and time
 * @param maxDepth the deepest nesting of the JSON
 */
public record HelmLimits(int maxEncodedBytes, int maxInflatedBytes, int maxDepth) {
  /** Checks every bound is positive. */
  public HelmLimits {
    if (maxEncodedBytes <= 0 || maxInflatedBytes <= 0 || maxDepth <= 0) {
      throw new IllegalArgumentException(
          "Helm record limits must be positive: encoded "
              + maxEncodedBytes
              + ", inflated "
              + maxInflatedBytes
              + ", depth "
              + maxDepth);
    }
  }

  /** 2 MiB encoded, 32 MiB inflated, 100 levels of JSON nesting. */
  public static HelmLimits defaults() {
    return new HelmLimits(2 << 20, 32 << 20, InputLimits.DEFAULT_MAX_DEPTH);
  }

  /** The JSON reader's limits: the inflated size and the depth, one document. */
  InputLimits json() {
    return new InputLimits(maxInflatedBytes, maxDepth, 0, 1);
  }
}
