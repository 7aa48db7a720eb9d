package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One cast attempt, prepared: its {@link CastRequest}, the plan over its record ({@link Planned}),
 * the lease and the records read under it, and its intent record; written and recorded by {@link
 * CastCompletion}. Immutable.
 */
final class CastAttempt {
  private final CastRequest request;
  private final @Nullable Release latest;
  private final EffectiveRelease effective;
  private final LiveState live;
  private final Plan plan;
  private final LeaseKeeper lease;
  private final @Nullable List<RecordEntry> records;
  private final Release pending;
  private final @Nullable StoredRelease saved;

  /**
   * The cast of {@code request} prepared: {@code planned} over its record ({@code latest} {@code
   * null}: a first install), holding {@code lease}, with the release's revisions read under it
   * (newest first, or {@code null} to have housekeeping read them), and its intent record {@code
   * pending}, saved as {@code saved} ({@code null} when the revision is recorded only with its
   * outcome).
   */
  CastAttempt(
      CastRequest request,
      Planned planned,
      LeaseKeeper lease,
      @Nullable List<RecordEntry> records,
      Release pending,
      @Nullable StoredRelease saved) {
    this.request = requireNonNull(request, "request");
    this.latest = planned.latest();
    this.effective = planned.effective();
    this.live = planned.live();
    this.plan = planned.plan();
    this.lease = requireNonNull(lease, "lease");
    this.records = records;
    this.pending = requireNonNull(pending, "pending");
    this.saved = saved;
  }

  @Nullable String description() {
    return request.description();
  }

  /** The record the plan is over, or {@code null} for a first install. */
  @Nullable Release latest() {
    return latest;
  }

  EffectiveRelease effective() {
    return effective;
  }

  LiveState live() {
    return live;
  }

  Plan plan() {
    return plan;
  }

  LeaseKeeper lease() {
    return lease;
  }

  /** The revisions read under the lease, newest first, or {@code null}: housekeeping reads them. */
  @Nullable List<RecordEntry> records() {
    return records;
  }

  Release pendingRecord() {
    return pending;
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

  /** The uids of what the record before this attempt retained, where it recorded them. */
  List<RetainedUid> previousRetainedUids() {
    Release before = latest();
    return before == null ? List.of() : before.retainedUids();
  }

  /** The status of the record before this attempt, or {@code null} for a first install. */
  @Nullable ReleaseStatus previousStatus() {
    Release before = latest();
    return before == null ? null : before.status();
  }
}
