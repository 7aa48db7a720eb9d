package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.DeleteBudget;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the destructive-change gate ({@link DeleteGate}) refuses of a plan: the deletes ({@code
 * prune}, {@code replace}) that need an approval by name, each with why, in plan order. Computed
 * from the plan alone (no request), so a plan shown to a person and the cast of it judge alike.
 *
 * @param refused the objects that need an approval by name, in plan order
 * @param reasons one line per refused object: {@code PersistentVolumeClaim/shop/data (prune):
 *     PersistentVolumeClaim is a protected kind}
 * @param deletes the plan's unapproved deletes
 * @param owned the objects the release owns before the cast (the base of a share budget)
 */
public record DeleteRefusal(
    List<ResourceRef> refused, List<String> reasons, int deletes, int owned) {

  private static final Set<Action> OWNED_BEFORE =
      Set.of(
          Action.UPDATE,
          Action.REPAIR,
          Action.REPLACE,
          Action.UNCHANGED,
          Action.PRUNE,
          Action.RETAIN);

  /** Copies the lists; requires one reason per refused object. */
  public DeleteRefusal {
    refused = List.copyOf(requireNonNull(refused, "refused"));
    reasons = List.copyOf(requireNonNull(reasons, "reasons"));
    if (refused.size() != reasons.size()) {
      throw new IllegalArgumentException(
          "one reason per refused object: " + refused.size() + " vs " + reasons.size());
    }
  }

  /**
   * What the gate of the options {@code plan} was made with (or, reviewed, is cast with) refuses of
   * it; a plan without a fingerprint is judged by {@link DeleteGate#defaults()}.
   */
  public static Optional<DeleteRefusal> of(Plan plan) {
    PlanFingerprint fingerprint = plan.fingerprint();
    return of(
        plan,
        fingerprint == null ? DeleteGate.defaults() : fingerprint.spec().options().deleteGate());
  }

  /**
   * What {@code gate} refuses of {@code plan}, or empty when the plan passes: every unapproved
   * delete of a protected kind; and, when the unapproved deletes are over the budget, every
   * unapproved delete (approving enough of them brings the plan under it).
   */
  public static Optional<DeleteRefusal> of(Plan plan, DeleteGate gate) {
    List<PlannedChange> deletes = new ArrayList<>();
    int owned = 0;
    for (PlannedChange c : plan.changes()) {
      if (OWNED_BEFORE.contains(c.action())) {
        owned++;
      }
      if (c.action().destructive() && !gate.approves(c.ref())) {
        deletes.add(c);
      }
    }
    DeleteBudget budget = gate.budget();
    boolean over = budget != null && budget.exceededBy(deletes.size(), owned);
    List<ResourceRef> refused = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (PlannedChange c : deletes) {
      String head = c.ref().key() + " (" + c.action().id() + "): ";
      if (gate.protects(c.ref().kind())) {
        refused.add(c.ref());
        reasons.add(head + c.ref().kind().key() + " is a protected kind");
      } else if (over) {
        refused.add(c.ref());
        reasons.add(
            head
                + "the plan deletes "
                + deletes.size()
                + " object(s) unapproved, over the budget of "
                + requireNonNull(budget).describe(owned));
      }
    }
    return refused.isEmpty()
        ? Optional.empty()
        : Optional.of(new DeleteRefusal(refused, reasons, deletes.size(), owned));
  }
}
