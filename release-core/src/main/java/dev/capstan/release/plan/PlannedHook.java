package dev.capstan.release.plan;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Hook;
import dev.capstan.release.model.HookDeletePolicy;
import dev.capstan.release.model.HookPhase;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A hook a cast of the plan will run, in run order: its phase, its object, its weight and the
 * delete policies that apply ({@code before-hook-creation} when it names none).
 *
 * @param phase when it runs
 * @param ref its object
 * @param weight its order within the phase
 * @param deletePolicies the policies that apply
 */
public record PlannedHook(
    HookPhase phase, ResourceRef ref, int weight, List<HookDeletePolicy> deletePolicies) {
  /** Requires every part; copies the policies. */
  public PlannedHook {
    requireNonNull(phase, "phase");
    requireNonNull(ref, "ref");
    deletePolicies = List.copyOf(deletePolicies);
  }

  /** {@code hook} as it runs in {@code phase}. */
  public static PlannedHook of(HookPhase phase, Hook hook) {
    return new PlannedHook(phase, hook.ref(), hook.weight(), hook.effectivePolicies());
  }

  /**
   * Where the hook's object lies when not in {@code namespace}: {@code cluster-scoped}, or {@code
   * in namespace N}; {@code null} when it is in {@code namespace}.
   */
  public @Nullable String outside(String namespace) {
    if (ref.kind().clusterScoped()) {
      return "cluster-scoped";
    }
    return ref.namespace().equals(namespace) ? null : "in namespace " + ref.namespace();
  }

  /**
   * One line: {@code pre-upgrade batch/Job/shop/migrate (weight -5; delete before-hook-creation,
   * hook-succeeded)}.
   */
  public String describe() {
    return phase
        + " "
        + ref.key()
        + " (weight "
        + weight
        + "; delete "
        + String.join(", ", deletePolicies.stream().map(HookDeletePolicy::toString).toList())
        + ")";
  }
}
