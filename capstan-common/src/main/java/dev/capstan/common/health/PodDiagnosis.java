package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;

import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What a workload's pods add to its verdict: the first that cannot become ready ({@link
 * PodFailure}), which fails it, else the first the scheduler holds back ({@link PodPending}), which
 * says why it is still in progress.
 */
final class PodDiagnosis {
  private PodDiagnosis() {}

  /**
   * The first failure among {@code pods} (in name order, for a stable answer), as {@code pod NAME:
   * container C: Reason: message}, or {@code null} when none of them has one.
   */
  static @Nullable String firstFailure(List<? extends Map<?, ?>> pods) {
    return first(
        pods,
        pod -> {
          PodFailure failure = PodFailure.of(pod);
          return failure == null ? null : failure.explain();
        });
  }

  /**
   * The first of {@code pods} (in name order) the scheduler holds back, as {@code pod NAME:
   * Unschedulable: message}, or {@code null} when none is.
   */
  static @Nullable String firstPending(List<? extends Map<?, ?>> pods) {
    return first(
        pods,
        pod -> {
          PodPending pending = PodPending.of(pod);
          return pending == null ? null : pending.explain();
        });
  }

  private static @Nullable String first(
      List<? extends Map<?, ?>> pods, Function<Map<?, ?>, @Nullable String> explain) {
    List<Map<?, ?>> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(p -> Trees.text(p, "metadata", "name")));
    for (Map<?, ?> pod : sorted) {
      String why = explain.apply(pod);
      if (why != null) {
        return "pod " + escape(Trees.text(pod, "metadata", "name")) + ": " + why;
      }
    }
    return null;
  }
}
