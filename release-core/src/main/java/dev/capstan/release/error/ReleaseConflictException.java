package dev.capstan.release.error;

import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import java.util.stream.Collectors;

/**
 * A cast refused because its plan has conflicts; nothing was written. {@link #plan()} is the plan,
 * for showing to a person.
 */
public final class ReleaseConflictException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // plans are immutable values; serialising one is not supported
  private final Plan plan;

  /** An exception carrying the refused plan. */
  public ReleaseConflictException(Plan plan) {
    super(
        "release "
            + plan.namespace()
            + "/"
            + plan.name()
            + " has unresolved conflicts; nothing was written: "
            + plan.conflicts().stream()
                .map(PlannedChange::ref)
                .map(r -> r.key())
                .collect(Collectors.joining(", "))
            + plan.conflicts().stream()
                .map(c -> "\n  - " + c.ref().key() + ": " + c.reason())
                .collect(Collectors.joining()));
    this.plan = plan;
  }

  /** The refused plan. */
  public Plan plan() {
    return plan;
  }
}
