package dev.capstan.update.plan;

import dev.capstan.update.UpdateException;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The plan has {@code blocked} rows (a downgrade, a version-policy violation) or CRD changes the
 * safety gate refuses; nothing is applied, not even in dry-run. The plan, with each row's and CRD's
 * reason, travels with the exception. The message names the blocked components, then the blocked
 * CRDs: {@code update blocked for operator, CRD widgets.example.com; see plan reasons}.
 */
public final class UpdateBlockedException extends UpdateException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // plans are records of immutable values; not meant to be serialised
  private final UpdatePlan plan;

  /**
   * Creates the exception.
   *
   * @param plan the plan with at least one blocked row or CRD
   */
  public UpdateBlockedException(UpdatePlan plan) {
    super(
        "update blocked for "
            + Stream.concat(
                    plan.blocked().stream().map(PlanRow::component),
                    plan.blockedCrds().stream().map(c -> "CRD " + c.name()))
                .collect(Collectors.joining(", "))
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
