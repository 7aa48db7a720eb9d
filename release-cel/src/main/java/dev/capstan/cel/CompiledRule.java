package dev.capstan.cel;

import dev.capstan.common.Escapes;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRule;
import dev.cel.common.CelErrorCode;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One rule compiled: its programs, and the fields of {@code self} they read. {@link #judge}
 * evaluates {@code inProgress}, {@code failed}, {@code current} in that order; an expression that
 * cannot be evaluated on the object (a field it reads is not there) does not hold.
 *
 * @param shipped whether it is one of the shipped defaults (named so in reasons)
 */
record CompiledRule(
    HealthRule rule,
    CelRuntime.Program current,
    CelRuntime.@Nullable Program inProgress,
    CelRuntime.@Nullable Program failed,
    List<List<String>> reads,
    boolean shipped) {

  /** The most characters of an expression shown in a reason. */
  static final int MAX_SHOWN = 160;

  /** The verdict, its reason naming the rule, the expression and what it saw. */
  Health judge(Map<String, Object> object) {
    Map<String, Object> self = CelValues.of(object);
    Held inProgressHeld = holds(inProgress, self);
    if (inProgressHeld.error != null) {
      return Health.failed(name() + ": " + inProgressHeld.error);
    }
    if (inProgressHeld.holds) {
      return Health.inProgress(said("inProgress holds", rule.inProgress(), object));
    }
    Held failedHeld = holds(failed, self);
    if (failedHeld.error != null) {
      return Health.failed(name() + ": " + failedHeld.error);
    }
    if (failedHeld.holds) {
      return Health.failed(said("failed holds", rule.failed(), object));
    }
    Held currentHeld = holds(current, self);
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

  /** Whether an expression held; an error that no waiting can mend (over the limit), if any. */
  private record Held(boolean holds, @Nullable String error) {}

  private static Held holds(CelRuntime.@Nullable Program program, Map<String, Object> self) {
    if (program == null) {
      return new Held(false, null);
    }
    try {
      return new Held(Boolean.TRUE.equals(program.eval(Map.of("self", self))), null);
    } catch (CelEvaluationException e) {
      if (e.getErrorCode() == CelErrorCode.ITERATION_BUDGET_EXCEEDED) {
        return new Held(
            false,
            "evaluation went over "
                + CelHealthRules.MAX_ITERATIONS
                + " iterations; make the rule read fewer items");
      }
      return new Held(false, null); // a field it reads is not there (yet): it does not hold
    }
  }
}
