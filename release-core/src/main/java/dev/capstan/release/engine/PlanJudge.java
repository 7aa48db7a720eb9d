package dev.capstan.release.engine;

import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;

/**
 * Judges a cast's final plan before its first write: reports it, refuses one that may not be cast
 * (nothing written), and creates the release's home namespace when the plan creates it. Every way a
 * cast plans passes its final plan here: both looks of a plan-first cast, the look under the lease,
 * {@code castAll}, a reviewed plan.
 */
final class PlanJudge {
  private final EngineContext context;

  PlanJudge(EngineContext context) {
    this.context = context;
  }

  /**
   * Reports the plan; refuses one with conflicts, one the destructive-change gate refuses ({@link
   * DeleteGateStage}), and a detached cast's that prunes.
   */
  Plan check(Plan plan, boolean detached) {
    context.emit(new ReleaseEvent.Planned(plan.namespace() + "/" + plan.name(), plan));
    if (!plan.applyable()) {
      throw new ReleaseConflictException(plan);
    }
    DeleteGateStage.check(plan);
    if (detached && plan.hasPrune()) {
      throw new ReleaseException(
          "release "
              + plan.namespace()
              + "/"
              + plan.name()
              + ": a detached cast may not prune ("
              + plan.changes(Action.PRUNE).size()
              + " to prune); cast it in the foreground; nothing was written");
    }
    return plan;
  }

  /**
   * Creates the release's home namespace when the plan creates it: the lease and the records live
   * there, so it must exist before the lease is taken (the executor creates every other namespace).
   */
  void createHomeNamespace(ReleaseSpec spec, Plan plan, Payloads payloads) {
    for (PlannedChange c : plan.changes()) {
      boolean ensure = c.ensures() && c.action() == Action.CREATE;
      if ((c.createReference() || ensure) && c.ref().name().equals(spec.namespace())) {
        context.emit(new ReleaseEvent.Started(spec.qualifiedName(), c.ref(), c.action()));
        if (ensure) {
          context
              .ports
              .orchestrator()
              .ensureNamespace(
                  CastExecution.ensured(payloads, c.ref()), spec.namespace(), spec.name());
        } else {
          context.ports.orchestrator().createNamespace(spec.namespace());
        }
        context.emit(new ReleaseEvent.Done(spec.qualifiedName(), c.ref(), c.action()));
      }
    }
  }

  /**
   * A plan judged before the first write: checked ({@link #check}: refused with nothing written
   * when it may not be cast), and the home namespace created if the plan creates it ({@link
   * #createHomeNamespace}). Every way a cast plans passes its final plan here.
   */
  Planned judged(CastRequest request, Planned planned) {
    Plan plan = check(planned.plan(), request.detached());
    createHomeNamespace(request.spec(), plan, request.payloads());
    return planned.withPlan(plan);
  }
}
