package dev.capstan.release.error;

import dev.capstan.release.plan.Plan;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A reviewed plan refused because what it was computed from moved before it was cast: the release
 * record, or an object the plan writes or deletes. Nothing was written; plan again and review the
 * new plan. {@link #moved()} says what moved, one line each.
 */
public final class StalePlanException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // plans are immutable values; serialising one is not supported
  private final Plan plan;

  @SuppressWarnings("serial") // an immutable list of strings
  private final List<String> moved;

  /** An exception naming the stale plan and what moved, one line each. */
  public StalePlanException(Plan plan, List<String> moved) {
    super(
        "release "
            + plan.namespace()
            + "/"
            + plan.name()
            + ": the plan for revision "
            + plan.revision()
            + " is stale; nothing was written; plan again:"
            + moved.stream().map(m -> "\n  - " + m).collect(Collectors.joining()));
    this.plan = plan;
    this.moved = List.copyOf(moved);
  }

  /** The refused plan. */
  public Plan plan() {
    return plan;
  }

  /**
   * What moved since the plan, one line each, e.g. {@code the record moved from revision 3 to 4}.
   */
  public List<String> moved() {
    return moved;
  }
}
