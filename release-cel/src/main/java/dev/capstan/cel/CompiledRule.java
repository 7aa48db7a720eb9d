package dev.capstan.cel;

import dev.capstan.common.Escapes;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRule;
import dev.cel.common.CelErrorCode;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One rule compiled: its expressions, and the fields of {@code self} they read. {@link #judge}
 * evaluates {@code inProgress}, {@code failed}, {@code current} in that order; an expression that
 * cannot be evaluated on the object (a field it reads is not there) does not hold; one that goes
 * over a limit of evaluation ({@link CelHealthRules#MAX_ITERATIONS}, {@link Meter}) fails the
 * object, naming the expression and the limit.
 *
 * @param shipped whether it is one of the shipped defaults (named so in reasons)
 */
record CompiledRule(
    HealthRule rule,
    Expression current,
    @Nullable Expression inProgress,
    @Nullable Expression failed,
    List<List<String>> reads,
    boolean shipped) {

  /** The most characters of an expression shown in a reason. */
  static final int MAX_SHOWN = 160;

  /**
   * One expression compiled: its field ({@code current}), its program and what evaluating it costs.
   */
  record Expression(String field, CelRuntime.Program program, EvaluationCost cost) {}

  /**
   * The verdict, its reason naming the rule, the expression and what it saw.
   *
   * @param nanoTime the clock of the evaluations' time limit ({@link System#nanoTime})
   */
  Health judge(Map<String, Object> object, LongSupplier nanoTime) {
    Map<String, Object> self = CelValues.of(object);
    Held inProgressHeld = holds(inProgress, self, nanoTime);
    if (inProgressHeld.error != null) {
      return Health.failed(name() + ": " + inProgressHeld.error);
    }
    if (inProgressHeld.holds) {
      return Health.inProgress(said("inProgress holds", rule.inProgress(), object));
    }
    Held failedHeld = holds(failed, self, nanoTime);
    if (failedHeld.error != null) {
      return Health.failed(name() + ": " + failedHeld.error);
    }
    if (failedHeld.holds) {
      return Health.failed(said("failed holds", rule.failed(), object));
    }
    Held currentHeld = holds(current, self, nanoTime);
    if (currentHeld.error != null) {
      return Health.failed(name() + ": " + currentHeld.error);
    }
    if (currentHeld.holds) {
      return Health.current();
    }
    return Health.inProgress(said("current does not hold yet", rule.current(), object));
  }

  /** {@code health rule example.com/Widget} (or {@code shipped health rule ...}). */
  String name() {
    return (shipped ? "shipped health rule " : "health rule ") + Escapes.escape(rule.kind());
  }

  private String said(String what, @Nullable String expression, Map<String, Object> object) {
    String text = expression == null ? "" : expression.strip();
    String shown = text.length() <= MAX_SHOWN ? text : text.substring(0, MAX_SHOWN) + "…";
    String seen = reads.isEmpty() ? "" : "; saw " + Seen.describe(reads, object);
    return name() + ": " + what + ": " + Escapes.escape(shown) + seen;
  }

  /** Whether an expression held; an error that no waiting can mend (over a limit), if any. */
  private record Held(boolean holds, @Nullable String error) {}

  private static Held holds(
      @Nullable Expression expression, Map<String, Object> self, LongSupplier nanoTime) {
    if (expression == null) {
      return new Held(false, null);
    }
    Meter meter = new Meter(expression.cost(), nanoTime);
    boolean holds;
    try {
      holds = Boolean.TRUE.equals(expression.program().trace(Map.of("self", self), meter));
    } catch (CelEvaluationException e) {
      if (meter.overLimit() == null && e.getErrorCode() == CelErrorCode.ITERATION_BUDGET_EXCEEDED) {
        return new Held(
            false,
            expression.field()
                + ": evaluation went over "
                + CelHealthRules.MAX_ITERATIONS
                + " iterations; make the rule read fewer items");
      }
      holds = false; // a field it reads is not there (yet): it does not hold
    }
    String over = meter.overLimit();
    return over == null
        ? new Held(holds, null)
        : new Held(
            false,
            expression.field() + ": " + over + "; make the rule read fewer or shorter values");
  }
}
