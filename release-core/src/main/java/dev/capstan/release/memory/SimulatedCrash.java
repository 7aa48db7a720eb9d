package dev.capstan.release.memory;

/**
 * Thrown by a {@link dev.capstan.common.FaultPlan#crashAfter crash-after} fault: the operation took
 * effect, then the "process died". It is an {@link Error}, so the engine's failure handling does
 * not run, exactly as if the process had stopped: the lease is not released and the record stays as
 * it was.
 */
public final class SimulatedCrash extends Error {
  private static final long serialVersionUID = 1L;

  /** A crash after {@code operation} on {@code target}. */
  public SimulatedCrash(Operation operation, String target) {
    super("simulated crash after " + operation + " " + target);
  }
}
