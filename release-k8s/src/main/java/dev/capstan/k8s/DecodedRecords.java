package dev.capstan.k8s;

import dev.capstan.common.SoftCache;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.Release;

/**
 * The records a store decoded lately, by the SHA-256 of their verified bytes, so a record read
 * twice in a row is decoded once: a command reads the latest record before it takes the lease (to
 * warn, to show what it replaces) and again under it, and a daemon or a controller reads it again
 * at the next operation. A decoded {@link Release} is immutable, so it is shared between reads; a
 * record whose bytes differ by one bit has another digest and is decoded afresh. At most {@value
 * #MAX_BYTES} bytes of records are kept (the least recently read go first), their decoded releases
 * held softly ({@link SoftCache}).
 */
final class DecodedRecords {
  /** The most record bytes (gzipped, as stored) whose decoded releases are kept at once. */
  static final long MAX_BYTES = 16L * 1024 * 1024;

  private final SoftCache<String, Release> bySha256 = new SoftCache<>(MAX_BYTES);

  /** The release {@code record}, whose SHA-256 is {@code sha256}, encodes. */
  Release decode(String sha256, byte[] record) {
    Release known = bySha256.get(sha256);
    if (known != null) {
      return known;
    }
    Release release = ReleaseRecordCodec.decode(record);
    bySha256.put(sha256, release, record.length);
    return release;
  }

  /** How many decoded records are kept (for tests). */
  int size() {
    return bySha256.size();
  }
}
