package dev.capstan.release.model;

import java.util.Locale;

/** The state of one release revision. */
public enum ReleaseStatus {
  /**
   * Saved before the first write of a cast whose lease keeps no intent (a detached cast, or a store
   * without lease intents): the intent log of an attempt in progress.
   */
  PENDING,
  /** The cast finished: applied, verified, pruned. */
  DEPLOYED,
  /** A later revision was deployed. */
  SUPERSEDED,
  /** The cast failed; {@link Release#failure()} says why. */
  FAILED,
  /**
   * An uninstall started (recorded first when its lease keeps no intent) and stopped, or is under
   * way; a retry continues it.
   */
  UNINSTALLING,
  /** Uninstalled, kept as a tombstone (history, re-adoption of retained volumes). */
  UNINSTALLED;

  /** The lower-case name, as shown in text and JSON. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
