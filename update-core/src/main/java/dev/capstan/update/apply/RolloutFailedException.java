package dev.capstan.update.apply;

import dev.capstan.update.UpdateException;
import dev.capstan.update.result.UpdateResult;
import java.util.Objects;

/**
 * A CRD apply or a workload rollout failed. The result carries each workload's status (and whether
 * rollback worked) and the manual recovery commands.
 */
public final class RolloutFailedException extends UpdateException {
  private static final long serialVersionUID = 1L;

  @SuppressWarnings("serial") // results are records of immutable values; not meant to be serialised
  private final UpdateResult result;

  /**
   * Creates the exception.
   *
   * @param result the failed result
   */
  public RolloutFailedException(UpdateResult result) {
    super("platform update failed; see per-workload status and recovery commands above");
    this.result = Objects.requireNonNull(result, "result");
  }

  /**
   * Returns the result of the failed apply.
   *
   * @return per-CRD and per-workload outcomes
   */
  public UpdateResult result() {
    return result;
  }
}
