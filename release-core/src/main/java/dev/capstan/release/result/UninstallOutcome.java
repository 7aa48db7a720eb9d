package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

/**
 * What {@code ReleaseController.uninstallAll} did with one of its releases: uninstalled it ({@link
 * Uninstalled}), or failed ({@link Failed}).
 */
public sealed interface UninstallOutcome {
  /** The release, as {@code namespace/name}. */
  String release();

  /**
   * The release was uninstalled, as {@code ReleaseController.uninstall} uninstalls it.
   *
   * @param release the release
   * @param result its tombstone (or purge) and what was deleted and kept
   */
  record Uninstalled(String release, UninstallResult result) implements UninstallOutcome {
    /** Requires every part. */
    public Uninstalled {
      requireNonNull(release, "release");
      requireNonNull(result, "result");
    }
  }

  /**
   * The uninstall of the release threw {@code error}, exactly what {@code
   * ReleaseController.uninstall} would have thrown: {@code ReleaseNotFoundException}, {@code
   * ReleaseLockedException}, or {@code UninstallFailedException} (holding how far it got).
   *
   * @param release the release
   * @param error why
   */
  record Failed(String release, RuntimeException error) implements UninstallOutcome {
    /** Requires every part. */
    public Failed {
      requireNonNull(release, "release");
      requireNonNull(error, "error");
    }
  }
}
