package dev.capstan.release.error;

import dev.capstan.release.plan.DeleteRefusal;
import dev.capstan.release.plan.Plan;
import java.util.stream.Collectors;

/**
 * A cast refused by the destructive-change gate ({@link dev.capstan.release.model.DeleteGate}): its
 * plan deletes an object of a protected kind, or more objects than the delete budget allows, that
 * nobody approved by name; nothing was written. {@link #refusal()} lists each object and why.
 */
public final class DestructiveChangeRefusedException extends ReleaseException {
  private static final long serialVersionUID = 1L;

  /** How to approve, in every way a cast is given: the CLI, a release file or Release, Java. */
  public static final String ADVICE =
      "approve each by name to cast it: the CLI's --approve-delete KEY (once per object), or"
          + " spec.options.approveDeletes in the release file or Release, or"
          + " ReleaseOptions.deleteGate().approving(..)";

  @SuppressWarnings("serial") // plans are immutable values; serialising one is not supported
  private final Plan plan;

  @SuppressWarnings("serial")
  private final DeleteRefusal refusal;

  /** An exception carrying the refused plan and what the gate refused of it. */
  public DestructiveChangeRefusedException(Plan plan, DeleteRefusal refusal) {
    super(
        "release "
            + plan.namespace()
            + "/"
            + plan.name()
            + ": the plan deletes "
            + refusal.refused().size()
            + " object(s) the delete gate keeps; nothing was written; "
            + ADVICE
            + refusal.reasons().stream().map(r -> "\n  - " + r).collect(Collectors.joining()));
    this.plan = plan;
    this.refusal = refusal;
  }

  /** The refused plan. */
  public Plan plan() {
    return plan;
  }

  /** What the gate refused, object by object. */
  public DeleteRefusal refusal() {
    return refusal;
  }
}
