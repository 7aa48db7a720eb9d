package dev.capstan.controller;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Hears how the controller works, for metrics (capstan-micrometer's {@code ControllerMetrics}
 * implements it): each reconcile as it ends, and, once the controller starts, a view of its state
 * to read from then on. Called on the controller's threads; an observer must not block. Default
 * methods do nothing.
 */
public interface ControllerObserver {
  /**
   * The controller started; {@code state} may be read from now on, from any thread.
   *
   * @param state the queue and the Releases, as the controller sees them now
   */
  default void started(State state) {}

  /**
   * One reconcile ended.
   *
   * @param reconcile what it was and how it ended
   */
  default void reconciled(Reconcile reconcile) {}

  /**
   * One reconcile.
   *
   * @param release the Release
   * @param duration how long it took
   * @param ready the status of the Release's {@code Ready} condition after it ({@code True}, {@code
   *     False} or {@code Unknown}), or null when it has none (gone, or never reconciled)
   * @param reason the reason of that condition ({@code Cast}, {@code UpToDate}, {@code CastFailed},
   *     {@code Forbidden}, ...), or {@code Error} when the reconcile threw (it could not write the
   *     Release's status)
   */
  record Reconcile(ReleaseKey release, Duration duration, @Nullable String ready, String reason) {
    /** Requires the release, duration and reason. */
    public Reconcile {
      java.util.Objects.requireNonNull(release, "release");
      java.util.Objects.requireNonNull(duration, "duration");
      java.util.Objects.requireNonNull(reason, "reason");
    }

    /** Whether it ended in a failure: {@code Ready=False}, or an error. */
    public boolean failed() {
      return "False".equals(ready) || reason.equals(ERROR);
    }
  }

  /** The reason of a reconcile that threw. */
  String ERROR = "Error";

  /** The controller's state, read when asked. */
  interface State {
    /** How many Releases wait in the work queue (due now or later). */
    int queueDepth();

    /**
     * How many Releases the controller sees have each condition status: {@code Ready} with {@code
     * True}, {@code False}, {@code Unknown} (every one of the three, zero included), and {@code
     * Stalled}, {@code Reconciling} and {@code Suspended} with {@code True}.
     */
    List<ConditionCount> releasesByCondition();
  }

  /**
   * How many Releases have a condition with a status.
   *
   * @param type for example {@code Ready}
   * @param status {@code True}, {@code False} or {@code Unknown}
   * @param count how many
   */
  record ConditionCount(String type, String status, int count) {}
}
