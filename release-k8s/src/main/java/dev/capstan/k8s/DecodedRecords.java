package dev.capstan.k8s;

import dev.capstan.common.SoftCache;
import dev.capstan.release.codec.RecordLimits;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.Release;
import org.jspecify.annotations.Nullable;

/**
 * The records a store decoded lately, by the SHA-256 of their verified bytes, so a record read
 * twice in a row is decoded once: a command reads the latest record before it takes the lease (to
 * warn, to show what it replaces) and again under it, and a daemon or a controller reads it again
 * at the next operation. A decoded {@link Release} is immutable, so it is shared between reads; a
 * record whose bytes differ by one bit has another digest and is decoded afresh. At most {@value
 * #MAX_BYTES} bytes of records are kept (the least recently read go first), their decoded releases
 * held softly ({@link SoftCache}).
 *
 * <p>Each record decoded or written is also known by its Secrets' identity (their names, uids and
 * resourceVersions, which change with any write of them): a read that lists the Secrets' metadata
 * alone and finds them as they were takes the release from here and reads none of their bytes.
 */
final class DecodedRecords {
  /** The most record bytes (gzipped, as stored) whose decoded releases are kept at once. */
  static final long MAX_BYTES = 16L * 1024 * 1024;

  /** How many records' identities ({@link #remember}) are kept at most. */
  static final long MAX_IDENTITIES = 4096;

  private final SoftCache<String, Release> bySha256 = new SoftCache<>(MAX_BYTES);
  private final SoftCache<String, String> byIdentity = new SoftCache<>(MAX_IDENTITIES);
  private final RecordLimits limits;

  /** Records decoded within {@code limits}. */
  DecodedRecords(RecordLimits limits) {
    this.limits = limits;
  }

  /**
   * The release {@code record}, whose SHA-256 is {@code sha256}, encodes, decoded within this
   * store's {@link RecordLimits}.
   */
  Release decode(String sha256, byte[] record) {
    Release known = bySha256.get(sha256);
    if (known != null) {
      return known;
    }
    Release release = ReleaseRecordCodec.decode(record, limits);
    bySha256.put(sha256, release, record.length);
    return release;
  }

  /**
   * The most bytes, as stored (gzipped), of one record's Secrets a read holds: what the {@link
   * RecordLimits}' decoded bytes take once compressed, whose worst case (data gzip cannot shrink)
   * adds a few bytes per 64 KiB block.
   */
  long maxStoredBytes() {
    return limits.maxDecodedBytes() + (limits.maxDecodedBytes() >> 10) + 1024;
  }

  /**
   * The release a record decoded lately encodes, by its {@code identity}: the names, uids and
   * resourceVersions of its Secrets as they were when it was decoded ({@link #remember}), which the
   * API server changes with any write of them; or {@code null}.
   */
  @Nullable Release known(String identity) {
    String sha256 = byIdentity.get(identity);
    return sha256 == null ? null : bySha256.get(sha256);
  }

  /** That the record whose Secrets are as {@code identity} says has the verified {@code sha256}. */
  void remember(String identity, String sha256) {
    byIdentity.put(identity, sha256, 1);
  }

  /**
   * Keeps {@code release}, just written as the record of {@code bytes} bytes whose SHA-256 is
   * {@code sha256}, in Secrets as {@code identity} says ({@link #remember}).
   */
  void written(String identity, String sha256, Release release, long bytes) {
    bySha256.put(sha256, release, bytes);
    remember(identity, sha256);
  }

  /** How many decoded records are kept (for tests). */
  int size() {
    return bySha256.size();
  }
}
