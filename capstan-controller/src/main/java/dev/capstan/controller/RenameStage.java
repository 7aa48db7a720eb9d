package dev.capstan.controller;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.HookRefusedException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.error.UninstallFailedException;
import java.time.Clock;
import org.jspecify.annotations.Nullable;

/**
 * The stage before the cast of a Release whose {@code spec.releaseName} changed since it last cast:
 * it lets go of the release it cast under the former name ({@code status.releaseName}) first, with
 * the Release's uninstall options and by the ownership rule its deletion follows ({@link LetGo}),
 * as Flux's helm-controller uninstalls a HelmRelease's release when its target changes. Until the
 * former release is uninstalled the new name is not cast and the status keeps naming the former
 * one, so the Release never answers for two releases at once (docs/controller.md, "Renaming a
 * release").
 */
final class RenameStage {
  private final StatusWriter status;
  private final Clock clock;

  RenameStage(StatusWriter status, Clock clock) {
    this.status = status;
    this.clock = clock;
  }

  /**
   * The release name {@code release} cast under, when it is not {@code name}; null when it cast
   * none (nothing recorded in its status) or cast {@code name}.
   */
  static @Nullable String formerName(ReleaseResource release, String name) {
    return release.status().get("releaseName") instanceof String s
            && !s.isEmpty()
            && !s.equals(name)
        ? s
        : null;
  }

  /**
   * Lets go of the release the Release cast under a former name, if it has one: uninstalled (a
   * Normal Event {@code Uninstalled}), or left installed when its latest revision is not the
   * Release's (a Warning Event {@code UninstallSkipped}), or not recorded any more (an outcome
   * line).
   *
   * @param engine the engines of the account the Release is cast as now
   * @return what comes next when the pass stops here (the former release is locked, or its
   *     uninstall failed: {@code UninstallFailed}, retried after {@link RetrySchedule#pause}); null
   *     when the new name may be cast
   */
  ReleaseReconciler.@Nullable Next letGoOfFormer(
      ReleaseResource release, ReleaseRequest request, Engines.Engine engine) {
    String name = request.releaseName();
    String former = formerName(release, name);
    if (former == null) {
      return null;
    }
    String switched = "spec.releaseName changed from " + former + " to " + name;
    try {
      LetGo.Outcome outcome =
          LetGo.release(
              engine.releases(),
              release.key(),
              former,
              request.uninstall(),
              request.account() != null);
      if (outcome instanceof LetGo.Uninstalled u) {
        status.done(
            release,
            "Uninstalled",
            switched + ": release " + former + " uninstalled: " + LetGo.summary(u.result()));
      } else if (outcome instanceof LetGo.LeftInstalled l) {
        status.warning(release, "UninstallSkipped", switched + ": " + l.why());
      } else {
        status.outcome(release.key(), switched + ": release " + former + " is not recorded");
      }
      return null;
    } catch (ReleaseLockedException e) {
      status.report(
          release,
          null,
          StatusReport.reconciling(
              "Locked",
              switched + ": release " + former + " is not uninstalled yet: " + message(e)));
      return ReleaseReconciler.Next.after(
          RetrySchedule.untilUnlocked(e.expiresAt(), request.interval(), clock.instant()));
    } catch (UninstallFailedException
        | StaleRecordException
        | HookRefusedException
        | ClusterException e) {
      ReleaseResource now =
          status.report(
              release,
              null,
              StatusReport.stalled(
                  "UninstallFailed",
                  switched
                      + ": release "
                      + former
                      + " could not be uninstalled, and "
                      + name
                      + " is cast only once it is: "
                      + message(e)
                      + (e instanceof HookRefusedException
                          ? LetGo.ownRightsAdvice(release.key().namespace(), former)
                          : "")));
      return ReleaseReconciler.Next.after(
          RetrySchedule.pause(now, request.interval(), clock.instant()));
    }
  }

  private static String message(Throwable e) {
    return String.valueOf(e.getMessage());
  }
}
