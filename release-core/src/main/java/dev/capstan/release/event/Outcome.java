package dev.capstan.release.event;

import java.util.Locale;

/** How an operation ended, as {@link ReleaseEvent.Finished} reports it. */
public enum Outcome {
  /** It did what was asked: a plan computed, a revision deployed, a release uninstalled. */
  SUCCEEDED,
  /**
   * It started writing and failed: a cast's revision is recorded {@code FAILED}, an uninstall's
   * stays {@code UNINSTALLING}.
   */
  FAILED,
  /** Refused before any write: the plan has conflicts. */
  CONFLICT,
  /**
   * Refused before any write: the destructive-change gate refused the plan's deletes ({@code
   * DestructiveChangeRefusedException}).
   */
  REFUSED,
  /** Refused before any write: another operation holds the release's lease. */
  LOCKED,
  /** Refused before any write: a reviewed plan no longer matches the record or the cluster. */
  STALE,
  /** Refused before any write: the input (payloads, options, plan) is invalid. */
  INVALID,
  /** The release, or the revision asked for, is not recorded. */
  NOT_FOUND,
  /** Anything else: a port failed, or the release cannot take this operation now. */
  ERROR;

  /** The lower-case name: {@code succeeded}, {@code not_found}, ... */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether nothing was written because the operation was refused before its first write. */
  public boolean refused() {
    return this == CONFLICT
        || this == REFUSED
        || this == LOCKED
        || this == STALE
        || this == INVALID
        || this == NOT_FOUND;
  }
}
