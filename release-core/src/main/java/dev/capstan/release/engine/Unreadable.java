package dev.capstan.release.engine;

import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import org.jspecify.annotations.Nullable;

/**
 * Records that cannot be read fail their own release alone, and say how to mend it: delete the
 * record of that revision (the store says how), after which the release reads as the revision
 * before, or, when it was the first, its objects read as an earlier install's, which the next cast
 * takes back with adopt.
 */
final class Unreadable {
  private Unreadable() {}

  /**
   * The record of {@code entry}, decoded; one that cannot be read fails with {@link #advice}.
   *
   * @throws RecordFormatException naming the release, the revision, why and how to recover
   */
  static StoredRelease stored(Store store, String namespace, String name, RecordEntry entry) {
    try {
      return entry.stored();
    } catch (RecordFormatException e) {
      throw new RecordFormatException(
          advice(store, namespace, name, entry.revision(), e.getMessage()), e);
    }
  }

  /** Why revision {@code revision} of a release cannot be read, and how to recover. */
  static String advice(
      Store store, String namespace, String name, int revision, @Nullable String why) {
    return "release "
        + namespace
        + "/"
        + name
        + ": the record of revision "
        + revision
        + " cannot be read ("
        + why
        + "); to recover, delete that record ("
        + store.recordRemoval(namespace, name, revision)
        + ")"
        + (revision > 1
            ? ": the release then reads as revision "
                + (revision - 1)
                + ", and the next cast records its revision "
                + revision
                + " again"
            : ": its objects then read as an earlier install's, which the next cast takes back"
                + " with adopt (the CLI's --adopt)");
  }
}
