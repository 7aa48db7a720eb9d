package dev.capstan.k8s;

import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.Release;
import java.lang.ref.SoftReference;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The records a store decoded lately, by the SHA-256 of their verified bytes, so a record read
 * twice in a row is decoded once: a command reads the latest record before it takes the lease (to
 * warn, to show what it replaces) and again under it, and a daemon or a controller reads it again
 * at the next operation. A decoded {@link Release} is immutable, so it is shared between reads; a
 * record whose bytes differ by one bit has another digest and is decoded afresh. At most {@value
 * #MAX_BYTES} bytes of records are kept (the least recently read go first), their decoded releases
 * held softly.
 */
final class DecodedRecords {
  /** The most record bytes (gzipped, as stored) whose decoded releases are kept at once. */
  static final long MAX_BYTES = 16L * 1024 * 1024;

  private record Kept(SoftReference<Release> release, int bytes) {}

  private final Map<String, Kept> bySha256 = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  /** The release {@code record}, whose SHA-256 is {@code sha256}, encodes. */
  Release decode(String sha256, byte[] record) {
    Release known = find(sha256);
    if (known != null) {
      return known;
    }
    Release release = ReleaseRecordCodec.decode(record);
    keep(sha256, release, record.length);
    return release;
  }

  private synchronized @Nullable Release find(String sha256) {
    Kept k = bySha256.get(sha256);
    Release release = k == null ? null : k.release().get();
    if (k != null && release == null) {
      bySha256.remove(sha256);
      bytes -= k.bytes();
    }
    return release;
  }

  private synchronized void keep(String sha256, Release release, int size) {
    if (size > MAX_BYTES) {
      return;
    }
    Kept old = bySha256.put(sha256, new Kept(new SoftReference<>(release), size));
    bytes += size - (old == null ? 0 : old.bytes());
    for (Iterator<Kept> eldest = bySha256.values().iterator();
        bytes > MAX_BYTES && eldest.hasNext(); ) {
      bytes -= eldest.next().bytes();
      eldest.remove();
    }
  }

  /** How many decoded records are kept (for tests). */
  synchronized int size() {
    return bySha256.size();
  }
}
