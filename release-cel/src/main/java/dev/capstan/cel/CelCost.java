package dev.capstan.cel;

import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.ExprKind.Kind;
import dev.cel.common.navigation.CelNavigableExpr;
import java.util.Optional;

/**
 * The estimated cost of an expression, checked against {@link CelHealthRules#MAX_COST} when rules
 * are loaded: every node costs 1, times {@link CelHealthRules#ASSUMED_LIST_SIZE} for each
 * comprehension ({@code exists}, {@code all}, {@code map}, {@code filter}) whose loop it is in (its
 * list is taken to hold that many items, as Kubernetes' CEL cost estimate takes a list without
 * {@code maxItems} at its largest). One pass over a list of conditions costs a few hundred; a pass
 * over a list inside a pass over another costs tens of thousands, and is refused. It cannot see the
 * object (how long its strings are, how many items its lists hold): {@link EvaluationCost} counts
 * what an evaluation costs as it runs.
 */
final class CelCost {
  /** Nesting beyond this is taken as this deep (the cost is over the limit by far already). */
  private static final int MAX_NESTING = 4;

  private CelCost() {}

  /** The estimated cost of {@code root}. */
  static long of(CelExpr root) {
    return CelNavigableExpr.fromExpr(root).allNodes().mapToLong(CelCost::weight).sum();
  }

  /** {@code ASSUMED_LIST_SIZE} to the power of the loops {@code node} is in. */
  private static long weight(CelNavigableExpr node) {
    int loops = 0;
    CelNavigableExpr child = node;
    Optional<CelNavigableExpr> parent = node.parent();
    while (parent.isPresent()) {
      CelExpr p = parent.get().expr();
      if (p.getKind() == Kind.COMPREHENSION) {
        long id = child.expr().id();
        if (id != p.comprehension().iterRange().id() && id != p.comprehension().accuInit().id()) {
          loops++;
        }
      }
      child = parent.get();
      parent = child.parent();
    }
    long weight = 1;
    for (int i = 0; i < Math.min(loops, MAX_NESTING); i++) {
      weight *= CelHealthRules.ASSUMED_LIST_SIZE;
    }
    return weight;
  }
}
