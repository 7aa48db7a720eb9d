package dev.capstan.release.event;

import java.util.Locale;

/** The operations of a {@code ReleaseController}, as events, logs and metrics name them. */
public enum Operation {
  /** A plan: {@code plan}, {@code planWithDiff}, {@code planRollback}; writes nothing. */
  PLAN,
  /** A cast of a spec or of a reviewed plan, in the foreground or detached. */
  CAST,
  /** A rollback: a recorded revision cast forward as a new one. */
  ROLLBACK,
  /** An uninstall. */
  UNINSTALL,
  /** {@code release test}: a release's test hooks run. */
  TEST;

  /** The lower-case name: {@code plan}, {@code cast}, {@code rollback}, {@code uninstall}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
