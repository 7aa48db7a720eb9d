package dev.capstan.cel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The limits of one evaluation hold whatever the object holds: a rule that would build gigabytes or
 * run for minutes over a large object fails it at the cost limit, one that runs too long at the
 * time limit, each verdict naming the rule, the expression and the limit; ordinary rules over large
 * objects judge them as before. The inputs are the size that made the unlimited evaluation run out
 * of a 256 MB heap, or run for minutes.
 */
class EvaluationLimitsTest {
  private static final String KIND = "example.com/Widget";

  private static final String BIG = "self.metadata.annotations.big";

  /** A clock that never moves: the cost limit alone decides. */
  private static final LongSupplier STOPPED = EvaluationLimitsTest::stopped;

  private static final String OVER_COST =
      "Widget shop/blue: health rule example.com/Widget: current: evaluation went over the cost"
          + " limit of 1000000 (a step costs 1, a function 1 more per 10 characters or items it"
          + " reads or makes); make the rule read fewer or shorter values";

  /**
   * A Widget with 9,000 annotations and one, {@code big}, of 150,000 characters: within the 256 KiB
   * the API server allows a resource's annotations.
   */
  private static Map<String, Object> crowded() {
    Map<String, Object> annotations = new LinkedHashMap<>();
    for (int i = 0; i < 9_000; i++) {
      annotations.put("k" + i, "v");
    }
    annotations.put("big", "x".repeat(150_000));
    return widget(annotations, Map.of("members", 3));
  }

  private static Map<String, Object> widget(
      Map<String, Object> annotations, Map<String, Object> spec) {
    return Map.of(
        "apiVersion",
        "example.com/v1",
        "kind",
        "Widget",
        "metadata",
        Map.of("name", "blue", "namespace", "shop", "generation", 1, "annotations", annotations),
        "spec",
        spec);
  }

  private static long stopped() {
    return 0;
  }

  private static Health judge(LongSupplier clock, String current, Map<String, Object> object) {
    CustomHealth rules =
        new CelHealthRules(clock).compile(List.of(HealthRule.current(KIND, current)));
    return HealthRules.of(object, List.of(), HealthRules.VolumeBinding.IMMEDIATE, true, rules);
  }

  @Test
  void aRuleThatConcatenatesInALoopStopsAtTheCostLimit() {
    // unlimited, it builds 9,001 strings of 300,000 characters: 2.7 GB
    assertThat(
            judge(
                STOPPED,
                "self.metadata.annotations.map(k, " + BIG + " + " + BIG + ").size() > 0",
                crowded()))
        .isEqualTo(Health.failed(OVER_COST));
  }

  @Test
  void aRuleThatMatchesAPatternInALoopStopsAtTheCostLimit() {
    // unlimited, it matches 9,001 strings of 300,000 characters: minutes
    assertThat(
            judge(
                STOPPED,
                "self.metadata.annotations.exists(k, ("
                    + BIG
                    + " + "
                    + BIG
                    + ").matches('(x+x+)+y'))",
                crowded()))
        .isEqualTo(Health.failed(OVER_COST));
  }

  @Test
  void anErrorTheLanguageAbsorbsDoesNotHideTheLimit() {
    // CEL takes `error || true` as true: the evaluation fails at the limit all the same
    assertThat(
            judge(
                STOPPED,
                "self.metadata.annotations.map(k, " + BIG + " + " + BIG + ").size() > 0 || true",
                crowded()))
        .isEqualTo(Health.failed(OVER_COST));
  }

  @Test
  void aPatternThatWouldCompileToGigabytesIsNotCompiled() {
    // its program would have a billion instructions: compiling it alone runs out of memory
    assertThat(
            judge(
                STOPPED,
                "self.metadata.name.matches('((x{1000}){1000}){1000}')",
                widget(Map.of(), Map.of())))
        .isEqualTo(Health.failed(OVER_COST));
  }

  @Test
  void aRuleThatRunsPastTheTimeLimitStops() {
    AtomicLong now = new AtomicLong();
    LongSupplier fast = () -> now.getAndAdd(200_000_000L); // 0.2 s passes at every reading

    assertThat(judge(fast, "self.metadata.annotations.exists(k, k == 'none')", crowded()))
        .isEqualTo(
            Health.failed(
                "Widget shop/blue: health rule example.com/Widget: current: evaluation went over"
                    + " the time limit of 1000 ms; make the rule read fewer or shorter values"));
  }

  @Test
  void aRuleOverTheIterationLimitNamesItsExpression() {
    List<Object> items = new ArrayList<>();
    for (int i = 0; i <= CelHealthRules.MAX_ITERATIONS; i++) {
      items.add(i);
    }
    CustomHealth rules =
        new CelHealthRules(STOPPED)
            .compile(
                List.of(
                    HealthRule.current(KIND, "true").withFailed("self.spec.items.all(i, i >= 0)")));

    assertThat(
            HealthRules.of(
                widget(Map.of(), Map.of("items", items)),
                List.of(),
                HealthRules.VolumeBinding.IMMEDIATE,
                true,
                rules))
        .isEqualTo(
            Health.failed(
                "Widget shop/blue: health rule example.com/Widget: failed: evaluation went over"
                    + " 10000 iterations; make the rule read fewer items"));
  }

  @Test
  void aRuleThatReadsALargeObjectOnceOverJudgesIt() {
    Map<String, Object> annotations = new LinkedHashMap<>();
    for (int i = 0; i < 9_000; i++) {
      annotations.put("k" + i, "v");
    }
    annotations.put(
        "kubectl.kubernetes.io/last-applied-configuration",
        "{\"kind\":\"Widget\",\"spec\":{\"names\":[\"" + "x".repeat(150_000) + "\"]}}");

    assertThat(
            judge(
                STOPPED,
                "self.metadata.annotations.exists(k, k == 'k8999') && self.metadata.annotations["
                    + "'kubectl.kubernetes.io/last-applied-configuration'].contains('\"Widget\"')",
                widget(annotations, Map.of())))
        .isEqualTo(Health.current());
  }
}
