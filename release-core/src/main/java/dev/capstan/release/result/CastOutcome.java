package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;
import dev.capstan.release.plan.Plan;

/**
 * What {@code ReleaseController.castAll} did with one of its releases: found it already as asked
 * ({@link Unchanged}), cast it ({@link Cast}), or failed ({@link Failed}).
 */
public sealed interface CastOutcome {
  /** The release, as {@code namespace/name}. */
  String release();

  /**
   * The release was already as asked, and nothing was written for it (no lease, no record): its
   * latest revision is {@code DEPLOYED} with the same objects, version and source, and the cluster
   * matched them when observed.
   *
   * @param release the release
   * @param deployed its latest revision, unchanged
   * @param plan the plan that found nothing to change (every object {@code UNCHANGED}); it carries
   *     no fingerprint and cannot be cast
   */
  record Unchanged(String release, Release deployed, Plan plan) implements CastOutcome {
    /** Requires every part. */
    public Unchanged {
      requireNonNull(release, "release");
      requireNonNull(deployed, "deployed");
      requireNonNull(plan, "plan");
    }
  }

  /**
   * The release was cast, as {@code ReleaseController.cast(ReleaseInput)} casts it.
   *
   * @param release the release
   * @param result the deployed revision and the plan executed
   */
  record Cast(String release, CastResult result) implements CastOutcome {
    /** Requires every part. */
    public Cast {
      requireNonNull(release, "release");
      requireNonNull(result, "result");
    }
  }

  /**
   * The cast of the release threw {@code error}, exactly what {@code ReleaseController.cast} would
   * have thrown: refused before any write ({@code InvalidReleaseException}, {@code
   * ReleaseConflictException}, {@code ReleaseLockedException}), or started and failed ({@code
   * CastFailedException}, holding the {@code FAILED} revision).
   *
   * @param release the release
   * @param error why
   */
  record Failed(String release, RuntimeException error) implements CastOutcome {
    /** Requires every part. */
    public Failed {
      requireNonNull(release, "release");
      requireNonNull(error, "error");
    }
  }
}
