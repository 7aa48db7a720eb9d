package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
   * A release's records as read under its lease: every revision, newest first ({@code null}: read
   * them again when needed), the latest after recovery ({@link #recover}), and the latest as {@code
   * read} before it.
   */
  record UnderLease(
      @Nullable List<RecordEntry> records,
      Optional<StoredRelease> latest,
      Optional<StoredRelease> read) {
    UnderLease {
      requireNonNull(latest, "latest");
      requireNonNull(read, "read");
    }
  }

  /**
   * Reads a release's records once its lease is held, and records what the holder of an expired
   * lease this one took over left unfinished ({@link #recover}); the revisions are then left for
   * housekeeping to read again.
   */
  UnderLease readUnderLease(String namespace, String name, LeaseKeeper lease) {
    List<RecordEntry> records = records(namespace, name);
    Optional<StoredRelease> latest = latestOf(records, namespace, name);
    Optional<StoredRelease> recovered = recover(namespace, name, latest, lease);
    return recovered.equals(latest)
        ? new UnderLease(records, latest, latest)
        : new UnderLease(null, recovered, latest);
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

  /**
   * Records what the holder of the expired lease that {@code lease} took over left unfinished, and
   * returns the latest revision after that ({@code latest} itself when nothing is recorded):
   *
   * <ul>
   *   <li>a {@code PENDING} latest revision is recorded {@code FAILED} ({@link #failInterrupted});
   *   <li>else, when the expired lease names a cast ({@link LeaseIntent}) that recorded nothing
   *       (the latest record names another attempt than the lease's), a new {@code FAILED} revision
   *       owning what the latest one owns and every object the cast named, so the next cast prunes
   *       what the interrupted one created and no longer wants;
   *   <li>else, when it names an uninstall of a release whose latest revision is neither {@code
   *       UNINSTALLING} nor {@code UNINSTALLED}, that revision {@code UNINSTALLING} with the
   *       interruption as its failure: a cast is refused until an uninstall finishes it.
   * </ul>
   */
  Optional<StoredRelease> recover(
      String namespace, String name, Optional<StoredRelease> latest, LeaseKeeper lease) {
    Lease old = lease.grant().takenOver();
    if (old == null) {
      return latest;
    }
    Release r = latest.map(StoredRelease::release).orElse(null);
    if (r != null && r.status() == ReleaseStatus.PENDING) {
      return Optional.of(failInterrupted(latest.get(), lease));
    }
    LeaseIntent intent = lease.takenOverIntent();
    if (intent == null || intent.recordedBy(r, old.acquiredAt())) {
      return latest; // nothing named, or the interrupted operation recorded its revision
    }
    return switch (intent.operation()) {
      case CAST -> Optional.of(recordInterruptedCast(namespace, name, r, intent, old));
      case UNINSTALL ->
          r == null
                  || r.status() == ReleaseStatus.UNINSTALLING
                  || r.status() == ReleaseStatus.UNINSTALLED
              ? latest
              : Optional.of(recordInterruptedUninstall(latest.get(), old, intent));
    };
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
            .withFailure(interrupted(old, "cast"))
            .withLease(null);
    StoredRelease saved = context.store.updateRecord(failed, latest.version());
    context.emit(
        new ReleaseEvent.RecordSaved(r.qualifiedName(), r.revision(), ReleaseStatus.FAILED));
    return saved;
  }

  /**
   * Records the cast an expired lease names as a new {@code FAILED} revision after {@code latest}
   * (or the first, under the id the cast named): it owns what {@code latest} owns, with its hashes,
   * and the cast's other objects under a hash no content has, so the next cast writes them again or
   * prunes them. It keeps the cast's source and version, and no payloads (nothing to roll back to).
   * When the interrupted holder's own record lands first (it wrote just as its lease ran out), that
   * record is the latest.
   */
  private StoredRelease recordInterruptedCast(
      String namespace, String name, @Nullable Release latest, LeaseIntent intent, Lease old) {
    Map<ResourceRef, String> owns = new LinkedHashMap<>();
    if (latest != null) {
      latest.owns().forEach(o -> owns.put(o.ref(), o.contentHash()));
    }
    intent.objects().forEach(ref -> owns.putIfAbsent(ref, UNKNOWN_CONTENT));
    int revision = latest == null ? 1 : latest.revision() + 1;
    Release failed =
        new Release(
            latest == null ? requireNonNull(intent.releaseId()) : latest.id(),
            namespace,
            name,
            revision,
            ReleaseStatus.FAILED,
            CastIntent.toOwned(owns),
            latest == null ? List.of() : latest.references(),
            latest == null ? List.of() : latest.retained(),
            intent.source(),
            intent.version(),
            null,
            Payloads.empty(),
            interrupted(old, "cast"),
            old.acquiredAt(),
            context.clock.instant(),
            null,
            latest == null ? null : latest.secretHashKey(),
            List.of(),
            null,
            intent.attempt());
    try {
      StoredRelease saved = context.store.createRecord(failed);
      context.emit(
          new ReleaseEvent.RecordSaved(failed.qualifiedName(), revision, ReleaseStatus.FAILED));
      return saved;
    } catch (StaleRecordException e) {
      return context
          .store
          .latestRecord(namespace, name)
          .orElseThrow(() -> e); // it recorded the revision itself, just in time
    }
  }

  /** Records an uninstall an expired lease names as {@code UNINSTALLING}, interrupted. */
  private StoredRelease recordInterruptedUninstall(
      StoredRelease latest, Lease old, LeaseIntent intent) {
    Release r = latest.release();
    Release uninstalling =
        r.withStatus(ReleaseStatus.UNINSTALLING, context.clock.instant())
            .withFailure(interrupted(old, "uninstall"))
            .withLease(null)
            .withAttempt(intent.attempt());
    StoredRelease saved = context.store.updateRecord(uninstalling, latest.version());
    context.emit(
        new ReleaseEvent.RecordSaved(r.qualifiedName(), r.revision(), ReleaseStatus.UNINSTALLING));
    return saved;
  }

  private static String interrupted(Lease old, String operation) {
    return "interrupted: the lease of "
        + old.holder()
        + " expired at "
        + old.expiresAt()
        + " before the "
        + operation
        + " finished";
  }

  /**
   * The content hash recorded for an object an interrupted cast may have written: a well-formed
   * hash that no content has, so the object is never taken for unchanged.
   */
  static final String UNKNOWN_CONTENT = ContentHash.PREFIX + "0".repeat(64);
}
