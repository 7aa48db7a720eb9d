package dev.capstan.controller;

/**
 * Hears of what the controller does, one line per outcome (the CLI prints them; default: SLF4J).
 */
@FunctionalInterface
public interface ControllerListener {
  /**
   * One outcome of a Release's reconcile, for example {@code revision 3: 2 created, 1 updated} or
   * {@code Conflict: release shop/web has unresolved conflicts; ...}. Never holds a secret value.
   *
   * @param release the Release
   * @param outcome one line
   */
  void outcome(ReleaseKey release, String outcome);
}
