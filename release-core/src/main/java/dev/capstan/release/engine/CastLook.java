package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.StoredRelease;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A cast's look at its release, before its lease or under it: the record read (under the lease,
 * with what a holder whose expired lease was taken over left recorded: {@link
 * Housekeeping#readUnderLease}), planned over ({@link Planning#planOverRecord}) unless the first
 * look's plan still holds, the plan judged ({@link PlanJudge#judged}) and, under the lease, the
 * intent saved ({@link CastIntent#savePending}).
 */
final class CastLook {
  private final EngineContext context;
  private final Planning planning;
  private final Housekeeping housekeeping;
  private final PlanJudge judge;
  private final CastIntent intent;

  CastLook(
      EngineContext context,
      Planning planning,
      Housekeeping housekeeping,
      PlanJudge judge,
      CastIntent intent) {
    this.context = context;
    this.planning = planning;
    this.housekeeping = housekeeping;
    this.judge = judge;
    this.intent = intent;
  }

  /**
   * Looks at the release {@code request} casts, under {@code lease} or, if {@code null}, before
   * taking it. Before the lease: the record read and planned over (once more if the plan has
   * conflicts and the record moved: {@link Planning#planOverRecord}), the plan judged unless a held
   * lease may explain its conflicts. Under the lease: the records read, recording what a holder
   * whose lease was taken over left unfinished; the {@code first} look's plan kept when the record
   * has not moved since (a taken-over pending revision recorded failed is not a move), else planned
   * again with the first look's key (or a new one, with the home namespace proven by the lease);
   * the plan judged unless the first look judged it; and the intent saved.
   */
  Look lookAt(CastRequest request, @Nullable Look first, @Nullable LeaseKeeper lease) {
    ReleaseSpec spec = request.spec();
    LeasedRecords read =
        lease == null ? null : housekeeping.readUnderLease(spec.namespace(), spec.name(), lease);
    Optional<StoredRelease> now =
        read == null ? context.store.latestRecord(spec.namespace(), spec.name()) : read.latest();
    Optional<StoredRelease> seen = read == null ? now : read.read();
    boolean pendingFailed =
        first != null
            && !now.equals(seen)
            && seen.isPresent()
            && seen.get().release().status() == ReleaseStatus.PENDING;
    boolean moved =
        first == null || !StoredRelease.sameVersion(first.record(), pendingFailed ? seen : now);
    SecretHashKey key = first == null ? SecretHashKey.generate() : first.key();
    Look looked;
    if (moved) {
      LeaseGrant grant = first == null && lease != null ? lease.grant() : null;
      looked =
          planning.planOverRecord(
              spec, request.payloads(), now, key, grant, request.rollback(), lease == null);
    } else {
      looked =
          pendingFailed ? requireNonNull(first).over(now.orElseThrow()) : requireNonNull(first);
    }
    Planned planned = looked.planned();
    // A held lease may explain the conflicts: a cast under way, or one that died before it
    // recorded anything, whose objects carry an id no record names yet. Its lease is then waited
    // for (or taken over, recording what it left), and the plan judged again under it.
    boolean deferred =
        lease == null
            && !planned.plan().applyable()
            && context.store.heldLease(spec.namespace(), spec.name()).isPresent();
    boolean judging = lease == null ? !deferred : moved || requireNonNull(first).deferred();
    Planned judged = judging ? judge.judged(request, planned) : planned;
    CastAttempt prepared =
        lease == null
            ? null
            : intent.savePending(request, judged, lease, requireNonNull(read).records());
    return looked.withVerdict(judged, deferred, prepared);
  }
}
