package dev.capstan.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRuleCompiler;
import dev.capstan.common.health.HealthRules;
import dev.capstan.common.health.InvalidHealthRulesException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Users' rules in CEL: compiled and type-checked when loaded (a bad expression refused with its
 * rule, field and position; one over the cost limit refused), evaluated inProgress, failed,
 * current, each verdict naming the rule, the expression and the values it read; a user's rule over
 * a shipped one, either over the built-in rules.
 */
class CelHealthRulesTest {
  private static final String KIND = "example.com/Widget";

  private static final HealthRule MEMBERS =
      HealthRule.current(
              KIND,
              "has(self.status) && self.status.phase == 'Running'"
                  + " && self.status.readyMembers == self.spec.members")
          .withFailed("has(self.status) && self.status.phase == 'Failed'");

  private static Map<String, Object> widget(Map<String, Object> status) {
    return Map.of(
        "apiVersion",
        "example.com/v1",
        "kind",
        "Widget",
        "metadata",
        Map.of("name", "blue", "namespace", "shop", "generation", 1),
        "spec",
        Map.of("members", 3),
        "status",
        status);
  }

  private static Health judge(CustomHealth rules, Map<String, Object> object) {
    return HealthRules.of(object, List.of(), HealthRules.VolumeBinding.IMMEDIATE, true, rules);
  }

  @Test
  void theInstalledCompilerIsCelsAndJudgesWhatOnlyARuleCanExpress() {
    CustomHealth rules = HealthRuleCompiler.compileInstalled(List.of(MEMBERS));

    assertThat(HealthRuleCompiler.installed()).containsInstanceOf(CelHealthRules.class);
    assertThat(judge(rules, widget(Map.of("phase", "Running", "readyMembers", 3))))
        .isEqualTo(Health.current());
    assertThat(judge(rules, widget(Map.of("phase", "Running", "readyMembers", 2))))
        .isEqualTo(
            Health.inProgress(
                "Widget shop/blue: health rule example.com/Widget: current does not hold yet:"
                    + " has(self.status) && self.status.phase == 'Running' &&"
                    + " self.status.readyMembers == self.spec.members; saw status.phase='Running',"
                    + " status.readyMembers=2, spec.members=3"));
    assertThat(judge(rules, widget(Map.of("phase", "Failed", "message", "disk\u001b[31m full"))))
        .isEqualTo(
            Health.failed(
                "Widget shop/blue: health rule example.com/Widget: failed holds: has(self.status)"
                    + " && self.status.phase == 'Failed'; saw status.phase='Failed',"
                    + " status.readyMembers (absent), spec.members=3"));
    // the built-in generic rule would call an object without a Ready condition current
    assertThat(judge(CustomHealth.none(), widget(Map.of("phase", "Pending"))))
        .isEqualTo(Health.current());
  }

  @Test
  void inProgressIsAskedFirstThenFailedThenCurrent() {
    CustomHealth rules =
        new CelHealthRules()
            .compile(
                List.of(
                    HealthRule.current(KIND, "true")
                        .withFailed("true")
                        .withInProgress("self.status.phase == 'Upgrading'")));

    assertThat(judge(rules, widget(Map.of("phase", "Upgrading"))))
        .isEqualTo(
            Health.inProgress(
                "Widget shop/blue: health rule example.com/Widget: inProgress holds:"
                    + " self.status.phase == 'Upgrading'; saw status.phase='Upgrading'"));
    assertThat(judge(rules, widget(Map.of("phase", "Running")))).isInstanceOf(Health.Failed.class);
  }

  @Test
  void aBadExpressionIsRefusedWithItsRuleFieldAndPosition() {
    assertThatThrownBy(
            () ->
                new CelHealthRules()
                    .compile(
                        List.of(
                            MEMBERS,
                            HealthRule.current(KIND, "self.status.phase == 'Running'")
                                .withFailed("slf.status.phase == 'Failed'"),
                            HealthRule.current("example.com/Gadget", "self.status.phase == "))))
        .isInstanceOfSatisfying(
            InvalidHealthRulesException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "healthRules[1] (example.com/Widget).failed: 1:1: undeclared reference to"
                            + " 'slf' (in container '')",
                        "healthRules[2] (example.com/Gadget).current: 1:22: mismatched input"
                            + " '<EOF>' expecting {'[', '{', '(', '.', '-', '!',"
                            + " 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING,"
                            + " BYTES, IDENTIFIER}"));
  }

  @Test
  void anExpressionThatIsNotABooleanIsRefused() {
    assertThatThrownBy(
            () -> new CelHealthRules().compile(List.of(HealthRule.current(KIND, "1 + 2"))))
        .isInstanceOfSatisfying(
            InvalidHealthRulesException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "healthRules[0] (example.com/Widget).current: 1:3: expected type 'bool'"
                            + " but found 'int'"));
  }

  @Test
  void aRuleOverTheCostLimitIsRefusedAndOneLoopIsWellUnderIt() {
    String nested =
        "self.status.conditions.all(c, self.status.conditions.exists(d, d.type == c.type))";
    assertThatThrownBy(
            () -> new CelHealthRules().compile(List.of(HealthRule.current(KIND, nested))))
        .isInstanceOfSatisfying(
            InvalidHealthRulesException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .asString()
                    .startsWith("healthRules[0] (example.com/Widget).current: estimated cost ")
                    .contains(
                        " is over the limit of 20000 (each loop over a list is taken to make 100"
                            + " iterations; a loop inside a loop costs their product): "));

    CustomHealth one =
        new CelHealthRules()
            .compile(
                List.of(
                    HealthRule.current(
                        KIND,
                        "self.status.conditions.exists(c, c.type == 'Ready' && c.status =="
                            + " 'True')")));
    assertThat(
            judge(
                one,
                widget(Map.of("conditions", List.of(Map.of("type", "Ready", "status", "True"))))))
        .isEqualTo(Health.current());
  }

  @Test
  void aUsersRuleReplacesTheShippedOneAndAKindWithoutRulesKeepsTheBuiltIns() {
    Map<String, Object> kafka =
        Map.of(
            "apiVersion",
            "kafka.strimzi.io/v1beta2",
            "kind",
            "Kafka",
            "metadata",
            Map.of("name", "events", "namespace", "shop", "generation", 1),
            "status",
            // sorted, so what the rule saw is shown in one order
            Map.of(
                "conditions",
                List.of(new java.util.TreeMap<>(Map.of("type", "Ready", "status", "True")))));
    CustomHealth shipped = new CelHealthRules().compile(List.of());
    CustomHealth mine =
        new CelHealthRules()
            .compile(
                List.of(HealthRule.current("kafka.strimzi.io/*", "has(self.status.listeners)")));

    assertThat(judge(shipped, kafka)).isEqualTo(Health.current());
    assertThat(judge(mine, kafka))
        .isEqualTo(
            Health.inProgress(
                "Kafka shop/events: health rule kafka.strimzi.io/*: current does not hold yet:"
                    + " has(self.status.listeners); saw status={conditions: [{status: 'True',"
                    + " type: 'Ready'}]}"));
    Map<String, Object> gadget =
        Map.of(
            "apiVersion",
            "example.com/v1",
            "kind",
            "Gadget",
            "metadata",
            Map.of("name", "g", "namespace", "shop"),
            "status",
            Map.of(
                "conditions",
                List.of(Map.of("type", "Ready", "status", "False", "reason", "Warming"))));
    assertThat(judge(mine, gadget))
        .isEqualTo(Health.inProgress("Gadget shop/g: Ready=False: Warming"));
  }

  @Test
  void aKindReadyOnceAppliedCannotHaveARuleAndABadKindIsNamed() {
    assertThatThrownBy(() -> HealthRule.current("ConfigMap", "true"))
        .hasMessage(
            "kind 'ConfigMap' is healthy once applied (the built-in rules never wait for it); a"
                + " rule cannot judge it");
    assertThatThrownBy(() -> HealthRule.current("example.com/widget", "true"))
        .hasMessage(
            "kind must be group/Kind, Kind for the core group, group/* or *.domain/*:"
                + " 'example.com/widget'");
  }
}
