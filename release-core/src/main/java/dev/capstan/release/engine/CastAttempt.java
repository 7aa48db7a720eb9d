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
 * One cast attempt, carried forward through its stages: {@linkplain #start prepared} (the caller's
 * spec and payloads), {@linkplain #planned planned} (the record it is over, what it writes, the
 * observation and the plan), {@linkplain #leased leased} (the lease and the records read under it),
 * {@linkplain #pending pending} (its intent record saved), then written and recorded by {@link
 * CastCompletion}. Immutable: each stage returns a new attempt; a stage's accessors fail on an
 * attempt that has not reached it.
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
   * This attempt as {@code planned} over its record ({@code latest} {@code null}: a first install).
   */
  CastAttempt planned(Planned planned) {
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
        lease,
        records,
        pending,
        saved);
  }

  /**
   * This attempt holding {@code lease}, with the release's revisions read under it (newest first),
   * or {@code null} to have housekeeping read them.
   */
  CastAttempt leased(LeaseKeeper lease, @Nullable List<RecordEntry> records) {
    return new CastAttempt(
        spec,
        payloads,
        description,
        detached,
        planned,
        latest,
        effective,
        live,
        plan,
        requireNonNull(lease),
        records,
        pending,
        saved);
  }

  /**
   * This attempt over {@code latest} as recorded again under the lease (a taken-over pending
   * revision recorded failed), its plan kept; housekeeping reads the revisions again.
   */
  CastAttempt over(Release latest) {
    return new CastAttempt(
        spec,
        payloads,
        description,
        detached,
        planned,
        latest,
        effective,
        live,
        plan,
        lease,
        null,
        pending,
        saved);
  }

  /**
   * This attempt with its intent record {@code pending}, saved as {@code saved} ({@code null} when
   * the revision is recorded only with its outcome).
   */
  CastAttempt pending(Release pending, @Nullable StoredRelease saved) {
    return new CastAttempt(
        spec,
        payloads,
        description,
        detached,
        planned,
        latest,
        effective,
        live,
        plan,
        lease,
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
