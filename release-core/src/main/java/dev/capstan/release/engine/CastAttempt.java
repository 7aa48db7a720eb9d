package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One cast attempt: {@linkplain #start started} (the caller's spec and payloads), then {@linkplain
 * #prepared prepared} once its stages before the first write handed on their values (the plan over
 * its record, {@link Planned}; the lease and the records read under it; its intent record), then
 * written and recorded by {@link CastCompletion}. Immutable; a prepared attempt's accessors fail on
 * one only started.
 */
final class CastAttempt {
  private final ReleaseSpec spec;
  private final Payloads payloads;
  private final @Nullable String description;
  private final boolean detached;
  private final boolean planned;
  private final @Nullable Release latest;
  private final @Nullable EffectiveRelease effective;
  private final @Nullable LiveState live;
  private final @Nullable Plan plan;
  private final @Nullable LeaseKeeper lease;
  private final @Nullable List<RecordEntry> records;
  private final @Nullable Release pending;
  private final @Nullable StoredRelease saved;

  private CastAttempt(
      ReleaseSpec spec,
      Payloads payloads,
      @Nullable String description,
      boolean detached,
      boolean planned,
      @Nullable Release latest,
      @Nullable EffectiveRelease effective,
      @Nullable LiveState live,
      @Nullable Plan plan,
      @Nullable LeaseKeeper lease,
      @Nullable List<RecordEntry> records,
      @Nullable Release pending,
      @Nullable StoredRelease saved) {
    this.spec = spec;
    this.payloads = payloads;
    this.description = description;
    this.detached = detached;
    this.planned = planned;
    this.latest = latest;
    this.effective = effective;
    this.live = live;
    this.plan = plan;
    this.lease = lease;
    this.records = records;
    this.pending = pending;
    this.saved = saved;
  }

  /**
   * A cast of {@code spec} (its home namespace referenced) with the caller's {@code payloads},
   * recorded with {@code description}; a {@code detached} one finishes on another thread.
   */
  static CastAttempt start(
      ReleaseSpec spec, Payloads payloads, @Nullable String description, boolean detached) {
    return new CastAttempt(
        spec,
        payloads,
        description,
        detached,
        false,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * This attempt prepared: {@code planned} over its record ({@code latest} {@code null}: a first
   * install), holding {@code lease}, with the release's revisions read under it (newest first, or
   * {@code null} to have housekeeping read them), and its intent record {@code pending}, saved as
   * {@code saved} ({@code null} when the revision is recorded only with its outcome).
   */
  CastAttempt prepared(
      Planned planned,
      LeaseKeeper lease,
      @Nullable List<RecordEntry> records,
      Release pending,
      @Nullable StoredRelease saved) {
    return new CastAttempt(
        spec,
        payloads,
        description,
        detached,
        true,
        planned.latest(),
        planned.effective(),
        planned.live(),
        planned.plan(),
        requireNonNull(lease),
        records,
        requireNonNull(pending),
        saved);
  }

  /** The caller's spec, with its home namespace referenced. */
  ReleaseSpec spec() {
    return spec;
  }

  /** The caller's payloads, as the record keeps them. */
  Payloads payloads() {
    return payloads;
  }

  @Nullable String description() {
    return description;
  }

  /** Whether it is a rollback's cast: only a rollback describes the revision it records. */
  boolean rollback() {
    return description != null;
  }

  boolean detached() {
    return detached;
  }

  /** The record the plan is over, or {@code null} for a first install. */
  @Nullable Release latest() {
    checkPlanned();
    return latest;
  }

  EffectiveRelease effective() {
    return requireNonNull(effective, "not planned");
  }

  LiveState live() {
    return requireNonNull(live, "not planned");
  }

  Plan plan() {
    return requireNonNull(plan, "not planned");
  }

  LeaseKeeper lease() {
    return requireNonNull(lease, "no lease");
  }

  /** The revisions read under the lease, newest first, or {@code null}: housekeeping reads them. */
  @Nullable List<RecordEntry> records() {
    return records;
  }

  Release pendingRecord() {
    return requireNonNull(pending, "no intent record");
  }

  /** The saved pending record, or {@code null} when the revision is recorded with its outcome. */
  @Nullable StoredRelease saved() {
    return saved;
  }

  /** What the record before this attempt owned. */
  List<OwnedResource> previousOwns() {
    Release before = latest();
    return before == null ? List.of() : before.owns();
  }

  /** What the record before this attempt retained. */
  List<ResourceRef> previousRetained() {
    Release before = latest();
    return before == null ? List.of() : before.retained();
  }

  /** The status of the record before this attempt, or {@code null} for a first install. */
  @Nullable ReleaseStatus previousStatus() {
    Release before = latest();
    return before == null ? null : before.status();
  }

  private void checkPlanned() {
    if (!planned) {
      throw new IllegalStateException("not planned");
    }
  }
}
