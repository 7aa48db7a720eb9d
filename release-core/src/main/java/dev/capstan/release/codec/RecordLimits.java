package dev.capstan.release.codec;

/**
 * How much a reader of release records may hold of one while it decodes it: its JSON's bytes once
 * inflated, and the nodes (mappings, lists, keys and values) of its tree. A record over either is
 * refused as it is read ({@link RecordFormatException}), before the rest is inflated or built: a
 * record is as trustworthy as the store it comes from, and a host that reads the records of others
 * on one heap (the Release controller, whose tenants may write the Secrets their records live in)
 * gives each read its share.
 *
 * @param maxDecodedBytes the most bytes a record's JSON may take once inflated
 * @param maxNodes the most nodes its tree may hold
 */
public record RecordLimits(long maxDecodedBytes, long maxNodes) {
  /** {@link ReleaseRecordCodec#MAX_DECODED_BYTES} and no bound on the nodes. */
  public static final RecordLimits DEFAULT =
      new RecordLimits(ReleaseRecordCodec.MAX_DECODED_BYTES, Long.MAX_VALUE);

  /** Checks both are positive and the bytes within {@link ReleaseRecordCodec#MAX_DECODED_BYTES}. */
  public RecordLimits {
    if (maxDecodedBytes <= 0 || maxNodes <= 0) {
      throw new IllegalArgumentException(
          "limits must be positive: maxDecodedBytes " + maxDecodedBytes + ", maxNodes " + maxNodes);
    }
    if (maxDecodedBytes > ReleaseRecordCodec.MAX_DECODED_BYTES) {
      throw new IllegalArgumentException(
          "maxDecodedBytes must be at most "
              + ReleaseRecordCodec.MAX_DECODED_BYTES
              + ": "
              + maxDecodedBytes);
    }
  }
}
