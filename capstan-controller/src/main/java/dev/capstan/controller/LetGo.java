package dev.capstan.controller;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.UninstallResult;

/**
 * A Release letting go of one release, by the ownership rule ({@link Ownership#uninstallRefusal}):
 * uninstalled with the Release's uninstall options when its latest revision names the Release, else
 * left installed, saying who cast it. Its deletion lets go of its release so, and a change of its
 * {@code spec.releaseName} of the release it cast under the former name ({@link RenameStage}).
 */
final class LetGo {
  private LetGo() {}

  /** What letting go of a release came to. */
  sealed interface Outcome {}

  /** The release is not recorded (never cast, or purged): there was nothing to let go of. */
  record NotRecorded() implements Outcome {}

  /** The release was the Release's: uninstalled. */
  record Uninstalled(UninstallResult result) implements Outcome {}

  /**
   * The release's latest revision is not the Release's: left installed.
   *
   * @param why who cast it, and how to uninstall it
   */
  record LeftInstalled(String why) implements Outcome {}

  /**
   * Lets the Release {@code key} go of the release {@code name} of its namespace: one read of the
   * latest record, then the uninstall when it is the Release's.
   *
   * @throws dev.capstan.release.error.ReleaseLockedException when another operation holds it
   * @throws dev.capstan.release.error.UninstallFailedException when deleting an object failed
   * @throws dev.capstan.common.ClusterException when the API server failed a request
   */
  static Outcome release(
      ReleaseController releases, ReleaseKey key, String name, UninstallOptions options) {
    Release latest = releases.get(key.namespace(), name).orElse(null);
    if (latest == null) {
      return new NotRecorded();
    }
    String left = Ownership.uninstallRefusal(key, latest);
    if (left != null) {
      return new LeftInstalled(left);
    }
    try {
      return new Uninstalled(releases.uninstall(key.namespace(), name, options));
    } catch (ReleaseNotFoundException e) {
      return new NotRecorded(); // purged since it was read
    }
  }

  /** {@code 2 deleted, 1 kept}, and {@code , records purged} when they were. */
  static String summary(UninstallResult result) {
    return result.deleted().size()
        + " deleted, "
        + result.retained().size()
        + " kept"
        + (result.purged() ? ", records purged" : "");
  }
}
