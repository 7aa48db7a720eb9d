package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The record keeping around operations: trimming old revisions after a cast, and recovering a
 * release whose lease was taken over from a holder that stopped mid-operation.
 */
final class Housekeeping {
  private final EngineContext context;

  Housekeeping(EngineContext context) {
    this.context = context;
  }

  /**
   * Trims history to {@code maxHistory} revisions; failures only warn. {@code before} are the
   * revisions read under the lease before {@code revision} was recorded (newest first; nobody else
   * records while the lease is held, so they are still current): no read then; {@code null} reads
   * them. The revision before is left as stored: {@link HistoryReads#superseding} reads it
   * superseded.
   */
  void afterCast(String namespace, String name, int revision, @Nullable List<RecordEntry> before) {
    Store store = context.store;
    try {
      int offset = before == null ? 0 : 1; // the new revision comes first, before them
      List<RecordEntry> revisions = before == null ? store.recordEntries(namespace, name) : before;
      for (int j = 0; j < revisions.size(); j++) {
        RecordEntry r = revisions.get(j);
        if (r.revision() != revision && j + offset >= context.maxHistory) {
          store.deleteRecord(namespace, name, r.revision());
        }
      }
    } catch (RuntimeException e) {
      context.emit(
          new ReleaseEvent.Warning(
              namespace + "/" + name,
              "history housekeeping failed (retried by the next cast): " + e.getMessage()));
    }
  }

  /**
   * A release's records as read under its lease: every revision, newest first ({@code null}: read
   * them again when needed), and the latest.
   */
  record UnderLease(@Nullable List<RecordEntry> records, Optional<StoredRelease> latest) {}

  /**
   * Reads a release's records once its lease is held. A revision left {@code PENDING} by a holder
   * whose lease was taken over is recorded {@code FAILED} first ({@link #failInterrupted}); the
   * revisions are then left for housekeeping to read again.
   */
  UnderLease readUnderLease(Planning planning, String namespace, String name, LeaseKeeper lease) {
    List<RecordEntry> records = planning.records(namespace, name);
    Optional<StoredRelease> latest = planning.latestOf(records, namespace, name);
    if (latest.isPresent() && lease.grant().takenOver() != null) {
      return new UnderLease(null, Optional.of(failInterrupted(latest.get(), lease)));
    }
    return new UnderLease(records, latest);
  }

  /** Records that the holder of an expired lease stopped mid-operation. */
  StoredRelease failInterrupted(StoredRelease latest, LeaseKeeper lease) {
    Release r = latest.release();
    if (r.status() != ReleaseStatus.PENDING) {
      return latest;
    }
    var old = requireNonNull(lease.grant().takenOver());
    Release failed =
        r.withStatus(ReleaseStatus.FAILED, context.clock.instant())
            .withFailure(
                "interrupted: the lease of "
                    + old.holder()
                    + " expired at "
                    + old.expiresAt()
                    + " before the cast finished")
            .withLease(null);
    StoredRelease saved = context.store.updateRecord(failed, latest.version());
    context.emit(
        new ReleaseEvent.RecordSaved(r.qualifiedName(), r.revision(), ReleaseStatus.FAILED));
    return saved;
  }
}
