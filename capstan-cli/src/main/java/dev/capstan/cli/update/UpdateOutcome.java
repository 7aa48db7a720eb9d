package dev.capstan.cli.update;

import static java.util.Objects.requireNonNull;

import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.result.UpdateResult;
import org.jspecify.annotations.Nullable;

/**
 * What a successful {@link UpdateCommand#run} did.
 *
 * @param dryRun whether it stopped after the plan because of {@code --dry-run}
 * @param plan the plan
 * @param result the apply result; null when nothing was applied (dry run, or nothing to do)
 */
public record UpdateOutcome(boolean dryRun, UpdatePlan plan, @Nullable UpdateResult result) {
  /** Validates the fields. */
  public UpdateOutcome {
    requireNonNull(plan, "plan");
  }
}
