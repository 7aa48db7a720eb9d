package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How one run of a hook ended, as the revision it ran for records it ({@link Release#hooks()}) and
 * {@code release get} and {@code history} show it.
 *
 * @param phase the phase it ran in
 * @param ref its object
 * @param status how it ended
 * @param message why it failed (the failing pod's reason for a Job or Pod), or {@code null}
 * @param startedAt when its object was created
 * @param finishedAt when it completed or failed
 */
public record HookOutcome(
    HookPhase phase,
    ResourceRef ref,
    Status status,
    @Nullable String message,
    Instant startedAt,
    Instant finishedAt) {

  /** How a hook run ended. */
  public enum Status {
    /** Created, and completed when it is a Job or Pod. */
    SUCCEEDED,
    /** Not created, failed, or not complete within its timeout. */
    FAILED
  }

  /** Requires every part. */
  public HookOutcome {
    requireNonNull(phase, "phase");
    requireNonNull(ref, "ref");
    requireNonNull(status, "status");
    requireNonNull(startedAt, "startedAt");
    requireNonNull(finishedAt, "finishedAt");
  }

  /** Whether it succeeded. */
  public boolean succeeded() {
    return status == Status.SUCCEEDED;
  }

  /** How long it ran. */
  public Duration took() {
    return Duration.between(startedAt, finishedAt);
  }

  /**
   * One line: {@code pre-upgrade batch/Job/shop/migrate succeeded}, or {@code ... failed: reason}.
   */
  public String describe() {
    return phase
        + " "
        + ref.key()
        + (succeeded() ? " succeeded" : " failed" + (message == null ? "" : ": " + message));
  }
}
