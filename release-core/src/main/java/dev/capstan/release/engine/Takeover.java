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
import dev.capstan.release.port.StoredRelease;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What an operation that took over an expired lease records for the holder that stopped
 * mid-operation, before it reads the release as its own (ARCHITECTURE.md, "Taking over what a
 * holder left unfinished").
 */
final class Takeover {
  private final EngineContext context;

  Takeover(EngineContext context) {
    this.context = context;
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
            intent.attempt(),
            List.of(),
            latest == null ? List.of() : latest.retainedUids());
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
