package dev.capstan.release.engine;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The record keeping around operations: reading a release's records under its lease (with what a
 * holder that stopped mid-operation left recorded by {@link Takeover}), and trimming old revisions
 * after a cast.
 */
final class Housekeeping {
  private final EngineContext context;
  private final Takeover takeover;

  Housekeeping(EngineContext context) {
    this.context = context;
    this.takeover = new Takeover(context);
  }

  /**
   * Trims history to {@code maxHistory} revisions, failed ones counted too, but never the newest
   * {@code DEPLOYED} revision (what a rollback goes back to): at most {@code maxHistory + 1}
   * records stay. Failures only warn. {@code before} are the revisions read under the lease before
   * {@code revision} was recorded (newest first; nobody else records while the lease is held, so
   * they are still current): no read then; {@code null} reads them. The revision before is left as
   * stored: {@link HistoryReads#superseding} reads it superseded.
   */
  void afterCast(String namespace, String name, int revision, @Nullable List<RecordEntry> before) {
    trim(namespace, name, revision, ReleaseStatus.DEPLOYED, before, -1);
  }

  /**
   * Trims history after {@code revision} was recorded {@code FAILED}, as {@link #afterCast} does;
   * and when it retried the failed revision before it with the same payloads ({@code replaced},
   * else -1), deletes that one too: however often one failing release is retried, its attempts keep
   * one record, and the older history stays.
   */
  void afterFailure(
      String namespace,
      String name,
      int revision,
      @Nullable List<RecordEntry> before,
      int replaced) {
    trim(namespace, name, revision, ReleaseStatus.FAILED, before, replaced);
  }

  private void trim(
      String namespace,
      String name,
      int revision,
      ReleaseStatus status,
      @Nullable List<RecordEntry> before,
      int replaced) {
    Store store = context.store;
    try {
      int offset = before == null ? 0 : 1; // the new revision comes first, before them
      List<RecordEntry> revisions = before == null ? store.recordEntries(namespace, name) : before;
      boolean deployedKept = offset == 1 && status == ReleaseStatus.DEPLOYED;
      int kept = offset;
      for (RecordEntry r : revisions) {
        if (r.revision() == revision) {
          kept++;
          deployedKept |= r.status() == ReleaseStatus.DEPLOYED;
          continue;
        }
        boolean newestDeployed = !deployedKept && r.status() == ReleaseStatus.DEPLOYED;
        if (r.revision() == replaced || (kept >= context.maxHistory && !newestDeployed)) {
          store.deleteRecord(namespace, name, r.revision());
          continue;
        }
        kept++;
        deployedKept |= r.status() == ReleaseStatus.DEPLOYED;
      }
    } catch (RuntimeException e) {
      context.emit(
          new ReleaseEvent.Warning(
              namespace + "/" + name,
              "history housekeeping failed (retried by the next cast): " + e.getMessage()));
    }
  }

  /**
   * Reads a release's records once its lease is held, and records what the holder of an expired
   * lease this one took over left unfinished ({@link Takeover#recover}); the revisions are then
   * left for housekeeping to read again.
   */
  LeasedRecords readUnderLease(String namespace, String name, LeaseKeeper lease) {
    List<RecordEntry> records = records(namespace, name);
    Optional<StoredRelease> read = latestOf(records, namespace, name);
    Optional<StoredRelease> latest = takeover.recover(namespace, name, read, lease);
    // once something was recorded, the revisions are read again when needed
    return new LeasedRecords(latest.equals(read) ? records : null, latest, read);
  }

  /**
   * The latest of {@code records} read under the lease (the one of them decoded), or a read of it
   * if they are unknown.
   */
  private Optional<StoredRelease> latestOf(
      @Nullable List<RecordEntry> records, String namespace, String name) {
    return records == null
        ? context.store.latestRecord(namespace, name)
        : records.stream()
            .findFirst()
            .map(e -> Unreadable.stored(context.store, namespace, name, e));
  }

  /**
   * Every revision of a release, newest first (one read: the latest and, for housekeeping, the
   * older ones, decoded only as needed: {@link Store#recordEntries}), or {@code null} when they
   * cannot be read: the caller then reads the latest alone, and housekeeping reads and warns, as
   * before.
   */
  private @Nullable List<RecordEntry> records(String namespace, String name) {
    try {
      return context.store.recordEntries(namespace, name);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
