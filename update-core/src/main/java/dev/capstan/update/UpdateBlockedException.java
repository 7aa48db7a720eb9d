package dev.capstan.update;

import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.UpdatePlan;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The plan has {@code blocked} rows (a downgrade, a version-policy violation); nothing is applied,
 * not even in dry-run. The plan, with each row's reason, travels with the exception.
 */
public final class UpdateBlockedException extends UpdateException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // plans are records of immutable values; not meant to be serialised
  private final UpdatePlan plan;

  /**
   * Creates the exception.
   *
   * @param plan the plan with at least one blocked row
   */
  public UpdateBlockedException(UpdatePlan plan) {
    super(
        "update blocked for "
            + plan.blocked().stream().map(PlanRow::component).collect(Collectors.joining(", "))
            + "; see plan reasons");
    this.plan = Objects.requireNonNull(plan, "plan");
  }

  /**
   * Returns the blocked plan.
   *
   * @return the plan whose blocked rows carry the reasons
   */
  public UpdatePlan plan() {
    return plan;
  }
}
