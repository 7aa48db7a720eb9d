package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;
import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Why a pod cannot become ready by waiting: one of its containers (init containers first) waits for
 * a reason in {@link #BAD_WAITING_REASONS}. Every rule that fails a workload early because of its
 * pods (release casts, platform updates) asks this one. A pod the scheduler finds no node for is
 * not such a pod: waiting may cure that ({@link PodPending}).
 *
 * @param cause what cannot start
 * @param container the container's name; {@code ""} for {@link Cause#POD}
 * @param reason the waiting reason ({@code CrashLoopBackOff}...), a terminated container's reason
 *     and exit code, or the failed pod's reason
 * @param message the container's waiting or terminated message, or the pod's; {@code ""} when none
 */
public record PodFailure(Cause cause, String container, String reason, String message) {
  /** Container waiting reasons that waiting will not cure. */
  public static final Set<String> BAD_WAITING_REASONS =
      Set.of(
          "CrashLoopBackOff",
          "ImagePullBackOff",
          "ErrImagePull",
          "InvalidImageName",
          "CreateContainerConfigError",
          "CreateContainerError");

  /** What keeps the pod from becoming ready. */
  public enum Cause {
    /** An init container waits for a reason waiting will not cure. */
    INIT_CONTAINER,
    /** A container waits for a reason waiting will not cure. */
    CONTAINER,
    /** The pod failed as a whole ({@code status.reason}, e.g. {@code DeadlineExceeded}). */
    POD
  }

  /** Validates the fields. */
  public PodFailure {
    requireNonNull(cause, "cause");
    requireNonNull(container, "container");
    requireNonNull(reason, "reason");
    requireNonNull(message, "message");
  }

  /**
   * Why {@code pod} cannot become ready: the first init container, then the first container,
   * waiting for a reason in {@link #BAD_WAITING_REASONS} ({@code
   * status.initContainerStatuses[].state.waiting}, {@code status.containerStatuses[]...}).
   *
   * @param pod the pod as read from the API server (nested maps and lists); only its status is read
   * @return the failure, or {@code null} when waiting may still make the pod ready
   */
  public static @Nullable PodFailure of(Map<?, ?> pod) {
    PodFailure init = waiting(pod, "initContainerStatuses", Cause.INIT_CONTAINER);
    if (init != null) {
      return init;
    }
    return waiting(pod, "containerStatuses", Cause.CONTAINER);
  }

  /**
   * Why a pod that ran to its end failed (phase {@code Failed}, as a hook's or a Job's pod does):
   * the first init container, then the first container, that terminated with a non-zero exit code
   * ({@code reason} is then its reason and exit code, e.g. {@code Error (exit code 1)}); else the
   * pod's own {@code status.reason} and {@code status.message} (e.g. {@code DeadlineExceeded}).
   *
   * @param pod the pod as read from the API server; only its status is read
   * @return the failure, or {@code null} when the pod did not fail
   */
  public static @Nullable PodFailure ofFinished(Map<?, ?> pod) {
    if (!"Failed".equals(Trees.string(pod, "status", "phase"))) {
      return null;
    }
    for (String field : new String[] {"initContainerStatuses", "containerStatuses"}) {
      for (Map<?, ?> cs : Trees.maps(pod, "status", field)) {
        Long exit = Trees.number(cs, "state", "terminated", "exitCode");
        if (exit != null && exit != 0) {
          String reason = Trees.text(cs, "state", "terminated", "reason");
          return new PodFailure(
              field.startsWith("init") ? Cause.INIT_CONTAINER : Cause.CONTAINER,
              Trees.text(cs, "name"),
              (reason.isEmpty() ? "terminated" : reason) + " (exit code " + exit + ")",
              Trees.text(cs, "state", "terminated", "message"));
        }
      }
    }
    String reason = Trees.text(pod, "status", "reason");
    return new PodFailure(
        Cause.POD, "", reason.isEmpty() ? "Failed" : reason, Trees.text(pod, "status", "message"));
  }

  /**
   * The failure for people, escaped: {@code init container C: Reason: message}, {@code container C:
   * Reason: message} or {@code Reason: message}, without an empty message.
   *
   * @return the failure, as health verdicts show it after the pod's name
   */
  public String explain() {
    String tail = message.isEmpty() ? "" : ": " + escape(message);
    return switch (cause) {
      case INIT_CONTAINER -> "init container " + escape(container) + ": " + reason + tail;
      case CONTAINER -> "container " + escape(container) + ": " + reason + tail;
      case POD -> escape(reason) + tail;
    };
  }

  private static @Nullable PodFailure waiting(Map<?, ?> pod, String field, Cause cause) {
    for (Map<?, ?> cs : Trees.maps(pod, "status", field)) {
      String reason = Trees.text(cs, "state", "waiting", "reason");
      if (BAD_WAITING_REASONS.contains(reason)) {
        return new PodFailure(
            cause, Trees.text(cs, "name"), reason, Trees.text(cs, "state", "waiting", "message"));
      }
    }
    return null;
  }
}
