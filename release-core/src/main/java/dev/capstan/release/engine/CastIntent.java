package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.WithheldSecret;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The last step of a cast before its first object write, once its plan is judged ({@link
 * PlanJudge}): the {@code PENDING} intent record.
 */
final class CastIntent {
  private final EngineContext context;

  CastIntent(EngineContext context) {
    this.context = context;
  }

  /**
   * Saves the {@code PENDING} intent record of a cast of {@code request}, {@code planned} with its
   * plan final, holding {@code lease}, with the {@code records} read under it ({@code null}:
   * housekeeping reads them), and returns the cast prepared with them ({@link CastAttempt}).
   */
  CastAttempt savePending(
      CastRequest request,
      Planned planned,
      LeaseKeeper lease,
      @Nullable List<RecordEntry> records) {
    ReleaseSpec spec = request.spec();
    EffectiveRelease effective = planned.effective();
    Payloads payloads = request.payloads();
    Plan plan = planned.plan();
    Release latest = planned.latest();
    List<OwnedResource> previousOwns = latest == null ? List.of() : latest.owns();
    String release = spec.qualifiedName();
    LeaseIntent leaseIntent = lease.intent();
    // created when the cast took its lease; whoever takes the lease over after it expired tells
    // whether this cast recorded its revision by the attempt both name (Takeover.recover)
    Instant at = lease.grant().lease().acquiredAt();
    String id =
        latest != null
            ? latest.id()
            : leaseIntent != null ? requireNonNull(leaseIntent.releaseId()) : context.ids.get();
    Map<ResourceRef, String> intent = new LinkedHashMap<>();
    previousOwns.forEach(o -> intent.put(o.ref(), o.contentHash()));
    effective.spec.resources().forEach(d -> intent.put(d.ref(), d.contentHash()));
    Set<ResourceRef> added = new HashSet<>(intent.keySet());
    previousOwns.forEach(o -> added.remove(o.ref()));
    // The lease names what the cast may write: a crash leaves nothing the next holder cannot
    // record. Otherwise the pending record says it, and a detached cast's caller reads it.
    boolean pendingRecord = request.detached() || leaseIntent == null || !leaseIntent.covers(added);
    Release pending =
        new Release(
            id,
            spec.namespace(),
            spec.name(),
            plan.revision(),
            ReleaseStatus.PENDING,
            toOwned(intent),
            spec.references(),
            latest == null ? List.of() : latest.retained(),
            spec.source(),
            spec.version(),
            request.description(),
            payloads,
            null,
            at,
            at,
            lease.grant().lease(),
            null,
            List.of(),
            spec.chart(),
            null,
            List.of(),
            latest == null ? List.of() : latest.retainedUids());
    pending =
        withSecrets(pending, effective, payloads, spec.options()).withAttempt(lease.attempt());
    // A plan that writes no object leaves nothing half-done if the process dies: its revision is
    // recorded once, with its outcome.
    StoredRelease saved = null;
    if (pendingRecord && (request.detached() || !plan.changesNothing())) {
      saved = context.store.createRecord(pending);
      context.emit(new ReleaseEvent.RecordSaved(release, plan.revision(), ReleaseStatus.PENDING));
    }
    return new CastAttempt(request, planned, lease, records, pending, saved);
  }

  /**
   * The pending record with the release's key and, unless the options record Secrets' values, its
   * Secrets withheld: the record then keeps their data keys and keyed hashes only, and no Secret
   * hook at all (a rollback to it, or an uninstall, cannot run one).
   */
  private static Release withSecrets(
      Release pending, EffectiveRelease effective, Payloads payloads, ReleaseOptions options) {
    Release keyed = pending.withSecretHashKey(effective.key);
    if (options.recordSecretValues()) {
      return keyed;
    }
    List<WithheldSecret> withheld = effective.withheld(payloads);
    Payloads kept = payloads;
    for (WithheldSecret w : withheld) {
      kept = kept.without(w.ref());
    }
    for (dev.capstan.release.model.Hook h : payloads.hooks()) {
      if (h.ref().kind().equals(dev.capstan.release.model.Kind.SECRET)) {
        kept = kept.without(h.ref()); // its values not recorded: a later rollback runs it not
      }
    }
    return keyed.withWithheldSecrets(kept, withheld);
  }

  static List<OwnedResource> toOwned(Map<ResourceRef, String> owns) {
    return owns.entrySet().stream().map(e -> new OwnedResource(e.getKey(), e.getValue())).toList();
  }
}
