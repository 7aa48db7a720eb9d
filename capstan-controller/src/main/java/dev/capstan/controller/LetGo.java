package dev.capstan.controller;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.HookPlan;
import dev.capstan.release.plan.PlannedHook;
import dev.capstan.release.result.UninstallResult;
import java.util.List;

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

  /** How many times a release recorded again between the read and the uninstall is read again. */
  static final int READS = 3;

  /**
   * Lets the Release {@code key} go of the release {@code name} of its namespace: one read of the
   * latest record, then, when it is the Release's, the uninstall pinned to that revision ({@link
   * UninstallOptions#expectedRevision}), so a revision recorded in between (a CLI cast, another
   * Release) is never uninstalled: the record is read again and decided again, up to {@link #READS}
   * times. When it runs as the Release's account ({@code asAccount}), the revision's delete hooks
   * outside the namespace run too ({@link UninstallOptions#allowedHooks}): their writes are the
   * account's, as its casts' were. With the controller's own rights none does: a record is as
   * trusted as whoever may write Secrets in the namespace, and the uninstall is refused ({@link
   * dev.capstan.release.error.HookRefusedException}).
   *
   * @throws dev.capstan.release.error.ReleaseLockedException when another operation holds it
   * @throws dev.capstan.release.error.UninstallFailedException when deleting an object failed
   * @throws StaleRecordException when the release was recorded again after each of its reads
   * @throws dev.capstan.common.ClusterException when the API server failed a request
   */
  static Outcome release(
      ReleaseController releases,
      ReleaseKey key,
      String name,
      UninstallOptions options,
      boolean asAccount) {
    for (int read = 1; ; read++) {
      Release latest = releases.get(key.namespace(), name).orElse(null);
      if (latest == null) {
        return new NotRecorded();
      }
      String left = Ownership.uninstallRefusal(key, latest);
      if (left != null) {
        return new LeftInstalled(left);
      }
      try {
        return new Uninstalled(
            releases.uninstall(
                key.namespace(),
                name,
                options
                    .withExpectedRevision(latest.revision())
                    .withAllowedHooks(
                        asAccount
                            ? HookPlan.uninstall(latest).outside().stream()
                                .map(PlannedHook::ref)
                                .toList()
                            : List.of())));
      } catch (ReleaseNotFoundException e) {
        return new NotRecorded(); // purged since it was read
      } catch (StaleRecordException e) {
        if (read == READS) {
          throw e;
        }
      }
    }
  }

  /**
   * What the status of an uninstall refused for hooks outside the namespace adds when the
   * controller runs the Release with its own rights: what to do that works.
   */
  static String ownRightsAdvice(String namespace, String name) {
    return "; the controller runs this Release with its own rights, so it runs no such hook: check"
        + " them, then uninstall the release yourself (capstan release uninstall "
        + dev.capstan.common.Escapes.escape(name)
        + " -n "
        + namespace
        + " --allow-hook KEY)";
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
