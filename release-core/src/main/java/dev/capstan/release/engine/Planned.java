package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Release;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import org.jspecify.annotations.Nullable;

/**
 * A plan over a record, with what it was made from: the record {@code latest} it is over ({@code
 * null}: a first install), the {@code effective} release, the {@code live} state observed and the
 * {@code plan}. The value the cast's planning stage hands on ({@link Planning#planOver}) to its
 * checks and its intent ({@link CastIntent#savePending}).
 */
record Planned(@Nullable Release latest, EffectiveRelease effective, LiveState live, Plan plan) {
  Planned {
    requireNonNull(effective, "effective");
    requireNonNull(live, "live");
    requireNonNull(plan, "plan");
  }

  /** This with {@code checked}, the plan as its checks handed it on. */
  Planned withPlan(Plan checked) {
    return new Planned(latest, effective, live, checked);
  }

  /**
   * This over {@code recorded}, the latest revision as recorded again under the lease (a taken-over
   * pending revision recorded failed), its plan kept.
   */
  Planned over(Release recorded) {
    return new Planned(recorded, effective, live, plan);
  }
}
