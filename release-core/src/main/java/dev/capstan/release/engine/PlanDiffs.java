package dev.capstan.release.engine;

import dev.capstan.release.diff.FieldChange;
import dev.capstan.release.diff.ManifestDiff;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Orchestrator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Attaches field-level diffs to a plan (see ARCHITECTURE.md, "Field-level diffs"): for every
 * update, repair and adoption, the live content before against what the cluster would store after
 * ({@link Orchestrator#dryRunApply}, one request per such object on Kubernetes). Creates, prunes,
 * retains, references, conflicts and unchanged objects get none and cost nothing, so a plan that
 * changes nothing makes no extra request.
 */
final class PlanDiffs {
  /** The actions whose objects exist and are rewritten: the ones a field-level diff explains. */
  static final Set<Action> DIFFED = Set.of(Action.UPDATE, Action.REPAIR, Action.ADOPT);

  private PlanDiffs() {}

  static Plan attach(Plan plan, LiveState live, Payloads payloads, Orchestrator cluster) {
    List<PlannedChange> changes = new ArrayList<>(plan.changes().size());
    for (PlannedChange c : plan.changes()) {
      changes.add(diffed(plan, c, live, payloads, cluster));
    }
    return plan.withChanges(changes);
  }

  private static PlannedChange diffed(
      Plan plan, PlannedChange c, LiveState live, Payloads payloads, Orchestrator cluster) {
    String hash = c.desiredHash();
    Manifest before = live.get(c.ref()).map(LiveObject::content).orElse(null);
    Manifest desired = payloads.get(c.ref()).orElse(null);
    if (!DIFFED.contains(c.action()) || hash == null || before == null || desired == null) {
      return c;
    }
    String id = plan.releaseId();
    @Nullable OwnershipStamp stamp =
        id == null
            ? null
            : OwnershipStamp.of(
                new ReleaseIdentity(plan.namespace(), plan.name(), id), plan.revision(), hash);
    Manifest after = cluster.dryRunApply(desired, stamp);
    List<FieldChange> diff = ManifestDiff.between(before, after);
    return c.withDiff(diff);
  }
}
