package dev.capstan.cel;

import dev.cel.common.ast.CelExpr;
import dev.cel.runtime.CelEvaluationListener;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The limits of one evaluation, kept while CEL evaluates: CEL calls the meter after each node it
 * evaluates, and the meter adds up the {@link EvaluationCost} and reads the clock. Once the cost is
 * over {@link CelHealthRules#MAX_EVALUATION_COST} or the time over {@link
 * CelHealthRules#MAX_EVALUATION_TIME} it throws; since CEL makes an error a value where the
 * language says so ({@code true || error} is {@code true}), it throws again at every later node, so
 * that the evaluation ends within a few nodes whatever it was doing, and {@link #overLimit} says
 * which limit it went over.
 */
final class Meter implements CelEvaluationListener {
  private final EvaluationCost cost;
  private final LongSupplier nanoTime;
  private final long deadline;

  /** The values of arguments whose call is not priced yet, by the id of their expression. */
  private final Map<Long, Object> earlier = new HashMap<>();

  /** The whole sizes of the lists and maps compared so far ({@link EvaluationCost#wholeSize}). */
  private final IdentityHashMap<Object, Long> known = new IdentityHashMap<>();

  private long spent;
  private @Nullable String over;

  /**
   * A meter for one evaluation starting now.
   *
   * @param nanoTime the clock ({@link System#nanoTime} outside tests)
   */
  Meter(EvaluationCost cost, LongSupplier nanoTime) {
    this.cost = cost;
    this.nanoTime = nanoTime;
    this.deadline = nanoTime.getAsLong() + CelHealthRules.MAX_EVALUATION_TIME.toNanos();
  }

  @Override
  public void callback(CelExpr expr, Object value) {
    if (over == null) {
      long id = expr.id();
      long left = CelHealthRules.MAX_EVALUATION_COST - spent;
      spent += 1 + cost.priceAfter(id, value, earlier, known, left);
      if (cost.isEarlierArgument(id)) {
        earlier.put(id, value);
      }
      if (spent > CelHealthRules.MAX_EVALUATION_COST) {
        over =
            "evaluation went over the cost limit of "
                + CelHealthRules.MAX_EVALUATION_COST
                + " (a step costs 1, a function 1 more per 10 characters or items it reads or"
                + " makes)";
      } else if (nanoTime.getAsLong() - deadline > 0) {
        over =
            "evaluation went over the time limit of "
                + CelHealthRules.MAX_EVALUATION_TIME.toMillis()
                + " ms";
      }
    }
    if (over != null) {
      earlier.clear();
      known.clear();
      throw new LimitReached(over);
    }
  }

  /** The limit the evaluation went over, said for a reason; null while under both. */
  @Nullable String overLimit() {
    return over;
  }

  /** Stops an evaluation (CEL wraps it in its {@code CelEvaluationException}). */
  private static final class LimitReached extends dev.capstan.common.CapstanException {
    private static final long serialVersionUID = 1L;

    LimitReached(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this; // thrown at every node once over: no trace to fill
    }
  }
}
