package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.Release;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import java.util.Locale;

/**
 * What a cast did: the recorded revision and the plan it executed.
 *
 * @param release the revision as recorded ({@code DEPLOYED}, or {@code FAILED} inside a {@link
 *     CastFailedException})
 * @param plan the plan the cast executed
 * @param revert for a failed atomic cast, whether the revert was complete
 */
public record CastResult(Release release, Plan plan, Revert revert) {
  /** Requires every part. */
  public CastResult {
    requireNonNull(release, "release");
    requireNonNull(plan, "plan");
    requireNonNull(revert, "revert");
  }

  /** The outcome of an atomic revert. */
  public enum Revert {
    /** No revert ran: the cast succeeded, or it was not atomic. */
    NOT_ATTEMPTED,
    /** Every change of the attempt was reverted; the previous revision's objects are back. */
    COMPLETE,
    /** Some reverts failed; the record lists everything that may still be live. */
    INCOMPLETE
  }

  /**
   * The outcome in one line, e.g. {@code CastResult[shop/web revision 2 deployed: 1 update, 3
   * unchanged]}, and how an atomic revert went when one ran.
   */
  @Override
  public String toString() {
    return "CastResult["
        + release.summary()
        + ": "
        + PlanRenderer.summary(plan)
        + (revert == Revert.NOT_ATTEMPTED
            ? ""
            : "; revert " + revert.name().toLowerCase(Locale.ROOT))
        + "]";
  }
}
