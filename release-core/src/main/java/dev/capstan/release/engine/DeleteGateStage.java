package dev.capstan.release.engine;

import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.plan.DeleteRefusal;
import dev.capstan.release.plan.Plan;
import java.util.Optional;

/**
 * The destructive-change gate as a stage of a cast, after planning and before the first write
 * (ARCHITECTURE.md, "The destructive-change gate"): a plan whose deletes the release's {@link
 * dev.capstan.release.model.DeleteGate} refuses is not cast. Costs no request.
 */
final class DeleteGateStage {
  private DeleteGateStage() {}

  /**
   * Passes {@code plan} on, or refuses it.
   *
   * @throws DestructiveChangeRefusedException listing each refused object and why
   */
  static Plan check(Plan plan) {
    Optional<DeleteRefusal> refusal = DeleteRefusal.of(plan);
    if (refusal.isPresent()) {
      throw new DestructiveChangeRefusedException(plan, refusal.get());
    }
    return plan;
  }
}
