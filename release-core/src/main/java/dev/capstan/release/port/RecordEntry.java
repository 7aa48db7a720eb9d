package dev.capstan.release.port;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.model.ReleaseStatus;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One stored revision of a release as a store lists it ({@link Store#recordEntries}): its revision
 * and status are known without decoding the record, which {@link #stored()} decodes on first use,
 * once. A cast reads every revision under its lease but decodes only the latest; history
 * housekeeping needs no more than the revision and status of the others.
 */
public final class RecordEntry {
  private final int revision;
  private final ReleaseStatus status;
  private @Nullable Supplier<StoredRelease> decode;
  private @Nullable StoredRelease stored;

  private RecordEntry(
      int revision,
      ReleaseStatus status,
      @Nullable Supplier<StoredRelease> decode,
      @Nullable StoredRelease stored) {
    this.revision = revision;
    this.status = requireNonNull(status, "status");
    this.decode = decode;
    this.stored = stored;
  }

  /** An entry of a record already decoded. */
  public static RecordEntry of(StoredRelease stored) {
    requireNonNull(stored, "stored");
    return new RecordEntry(stored.release().revision(), stored.release().status(), null, stored);
  }

  /**
   * An entry whose record {@code decode} reads when it is first asked for. The store vouches for
   * {@code revision} and {@code status} (on Kubernetes, the record Secret's labels, written with
   * the record); the decoded record must agree, else {@link #stored()} refuses it.
   */
  public static RecordEntry lazy(
      int revision, ReleaseStatus status, Supplier<StoredRelease> decode) {
    return new RecordEntry(revision, status, requireNonNull(decode, "decode"), null);
  }

  /** The revision, known without decoding. */
  public int revision() {
    return revision;
  }

  /** The status, known without decoding. */
  public ReleaseStatus status() {
    return status;
  }

  /**
   * The record, decoded on the first call (and verified, as a store's reads are).
   *
   * @throws RecordFormatException if it cannot be read, or its revision or status is not the one it
   *     was listed with
   */
  public synchronized StoredRelease stored() {
    StoredRelease s = stored;
    if (s == null) {
      s = requireNonNull(decode, "decode").get();
      if (s.release().revision() != revision || s.release().status() != status) {
        throw new RecordFormatException(
            "release record "
                + s.release().qualifiedName()
                + " was listed as revision "
                + revision
                + " "
                + status.id()
                + " but holds revision "
                + s.release().revision()
                + " "
                + s.release().status().id(),
            null);
      }
      stored = s;
      decode = null;
    }
    return s;
  }

  /** Revision and status only: the record may not be decoded. */
  @Override
  public String toString() {
    return "RecordEntry[revision=" + revision + ", status=" + status.id() + "]";
  }
}
