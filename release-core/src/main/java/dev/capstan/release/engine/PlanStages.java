package dev.capstan.release.engine;

import dev.capstan.release.model.Release;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedHook;
import dev.capstan.release.plan.Planner;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The plan's stages over one observation, one after the other: the planner, the updates that
 * replace, the CRD safety gate, the cluster's verification, the hooks. What every way a cast plans
 * runs once it has observed: the recipe over one record ({@link Planning#planOver}) and {@code
 * castAll}, which observes many releases in one read ({@link FleetCast}).
 */
final class PlanStages {
  private PlanStages() {}

  /**
   * Plans {@code effective} (keyed Secret hashes, config rollouts and their reasons) over {@code
   * latest} as {@code live} shows, marks the updates that replace ({@link Replacements}), passes
   * its CRD changes through the safety gate ({@link CrdSafety}), has the cluster verify it when the
   * release asks for it ({@link ServerVerification#verifyIfAsked}), and lists the hooks its cast
   * runs ({@link HookStage#planned}: a {@code rollback}'s, or an install's or upgrade's); the
   * cluster and the event listeners are {@code context}'s.
   */
  static Planned planned(
      EngineContext context,
      @Nullable Release latest,
      EffectiveRelease effective,
      LiveState live,
      boolean rollback) {
    Plan planned = Planner.plan(effective.spec, latest, live, effective.reasons, effective.ignored);
    Plan marked =
        Replacements.mark(planned, latest, live, effective.applied, effective.spec.options());
    Plan gated =
        CrdSafety.gate(
            marked,
            live,
            effective.applied,
            effective.spec.options(),
            context.ports.orchestrator());
    Plan verified =
        ServerVerification.verifyIfAsked(
            gated,
            live,
            effective,
            context.ports.orchestrator(),
            context::emit,
            context.parallelism,
            false);
    List<PlannedHook> hooks = HookStage.planned(effective.objects, latest, rollback);
    return new Planned(latest, effective, live, verified.withHooks(hooks));
  }
}
