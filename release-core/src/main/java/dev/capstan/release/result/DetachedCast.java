package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.Release;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import java.util.concurrent.CompletableFuture;

/**
 * A cast running in the background: its {@code PENDING} revision is recorded, its objects are being
 * written.
 *
 * @param pending the revision as recorded before the first write
 * @param plan the plan being executed
 * @param completion completes with the deployed result, or exceptionally with {@link
 *     CastFailedException} (or a {@link ClusterException} if even the failure could not be handled)
 */
public record DetachedCast(Release pending, Plan plan, CompletableFuture<CastResult> completion) {
  /** Requires every part. */
  public DetachedCast {
    requireNonNull(pending, "pending");
    requireNonNull(plan, "plan");
    requireNonNull(completion, "completion");
  }

  /**
   * The cast in one line, e.g. {@code DetachedCast[shop/web revision 2 pending: 1 update; running]}
   * ({@code done} or {@code failed} once the completion completed).
   */
  @Override
  public String toString() {
    return "DetachedCast["
        + pending.summary()
        + ": "
        + PlanRenderer.summary(plan)
        + "; "
        + (!completion.isDone()
            ? "running"
            : completion.isCompletedExceptionally() ? "failed" : "done")
        + "]";
  }
}
