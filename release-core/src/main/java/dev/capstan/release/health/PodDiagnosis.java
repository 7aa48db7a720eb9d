package dev.capstan.release.health;

import static dev.capstan.common.Escapes.escape;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Why a pod cannot become ready by waiting: a container (init containers first) waiting for a
 * reason in {@link #BAD_WAITING_REASONS}, or the pod unschedulable.
 */
final class PodDiagnosis {
  /** Container waiting reasons that waiting will not cure. */
  static final Set<String> BAD_WAITING_REASONS =
      Set.of(
          "CrashLoopBackOff",
          "ImagePullBackOff",
          "ErrImagePull",
          "InvalidImageName",
          "CreateContainerConfigError",
          "CreateContainerError");

  private PodDiagnosis() {}

  /**
   * The first failure among {@code pods} (in name order, for a stable answer), as {@code pod NAME:
   * container C: Reason: message}, or {@code null} when none of them has one.
   */
  static @Nullable String firstFailure(List<? extends Map<?, ?>> pods) {
    List<Map<?, ?>> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(p -> Tree.text(p, "metadata", "name")));
    for (Map<?, ?> pod : sorted) {
      String failure = failure(pod);
      if (failure != null) {
        return "pod " + escape(Tree.text(pod, "metadata", "name")) + ": " + failure;
      }
    }
    return null;
  }

  /** Why {@code pod} cannot become ready ({@code container C: Reason: message}), or null. */
  static @Nullable String failure(Map<?, ?> pod) {
    String init = waiting(pod, "initContainerStatuses", "init container ");
    if (init != null) {
      return init;
    }
    String main = waiting(pod, "containerStatuses", "container ");
    if (main != null) {
      return main;
    }
    for (Condition c : Condition.of(pod)) {
      if (c.type().equals("PodScheduled")
          && c.status().equals("False")
          && c.reason().equals("Unschedulable")) {
        return c.explain("Unschedulable");
      }
    }
    return null;
  }

  private static @Nullable String waiting(Map<?, ?> pod, String field, String label) {
    for (Map<?, ?> cs : Tree.maps(pod, "status", field)) {
      String reason = Tree.text(cs, "state", "waiting", "reason");
      if (BAD_WAITING_REASONS.contains(reason)) {
        String message = Tree.text(cs, "state", "waiting", "message");
        return label
            + escape(Tree.text(cs, "name"))
            + ": "
            + reason
            + (message.isEmpty() ? "" : ": " + escape(message));
      }
    }
    return null;
  }
}
