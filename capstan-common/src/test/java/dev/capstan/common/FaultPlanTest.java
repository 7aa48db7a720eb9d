package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
  private enum Op {
    READ,
    WRITE
  }

  @Test
  void aCountedRuleFailsOnlyItsCallAndNamesIt() {
    FaultPlan<Op> plan = FaultPlan.create();
    plan.failOn(Op.WRITE, 2);

    assertThat(plan.before(Op.WRITE, "a")).isFalse();
    assertThat(plan.before(Op.READ, "a")).isFalse();
    assertThatThrownBy(() -> plan.before(Op.WRITE, "b"))
        .isInstanceOf(ClusterException.class)
        .hasMessage("write b failed: injected fault on call 2");
    assertThat(plan.before(Op.WRITE, "c")).isFalse();
  }

  @Test
  void aTargetRuleFailsEveryCallOnItsTargetOnly() {
    FaultPlan<Op> plan = FaultPlan.create();
    plan.failOn(Op.READ, "ns/web");

    assertThat(plan.before(Op.READ, "ns/db")).isFalse();
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> plan.before(Op.READ, "ns/web"))
          .hasMessage("read ns/web failed: injected fault on ns/web");
    }
  }

  @Test
  void rulesWithAMessageSayItAndCountTheirOwnCalls() {
    FaultPlan<Op> plan = FaultPlan.create();
    plan.failNext(Op.WRITE, FaultPlan.ANY, "first").failNth(Op.WRITE, "ns/web", 2, "second");

    assertThatThrownBy(() -> plan.before(Op.WRITE, "ns/web")).hasMessage("write ns/web: first");
    assertThatThrownBy(() -> plan.before(Op.WRITE, "ns/web")).hasMessage("write ns/web: second");
    assertThat(plan.before(Op.WRITE, "ns/web")).isFalse();
  }

  @Test
  void aCrashRuleLetsTheCallThroughAndSaysToCrash() {
    FaultPlan<Op> plan = FaultPlan.create();
    plan.crashAfter(Op.WRITE, 1);

    assertThat(plan.before(Op.WRITE, "a")).isTrue();
    assertThat(plan.before(Op.WRITE, "a")).isFalse();
  }

  @Test
  void delaysPauseWithThePlansSleeperAndClearRemovesEveryRule() {
    ManualClock clock = ManualClock.create();
    FaultPlan<Op> plan = FaultPlan.create(Sleeper.manual(clock));
    plan.delay(Op.READ, Duration.ofSeconds(2)).failAlways(Op.WRITE, FaultPlan.ANY, "down");

    plan.before(Op.READ, "a");
    plan.clear();

    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(2));
    assertThat(plan.before(Op.WRITE, "a")).isFalse();
  }

  @Test
  void aCallIndexBelowOneIsRefused() {
    FaultPlan<Op> plan = FaultPlan.create();

    assertThatThrownBy(() -> plan.failOn(Op.READ, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("call index must be at least 1: 0");
  }
}
