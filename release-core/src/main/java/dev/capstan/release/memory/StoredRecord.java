package dev.capstan.release.memory;

import dev.capstan.release.model.Release;
import dev.capstan.release.port.StoredRelease;

/**
 * A stored record: the codec's bytes (what other stores keep, exported as state) and the record
 * they encode, decoded once, since records are immutable values.
 */
final class StoredRecord {
  final byte[] bytes;
  final Release release;
  final long version;

  StoredRecord(byte[] bytes, Release release, long version) {
    this.bytes = bytes;
    this.release = release;
    this.version = version;
  }

  StoredRelease decode() {
    return new StoredRelease(release, Long.toString(version));
  }
}
