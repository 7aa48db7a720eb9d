package dev.capstan.common.health;

import static dev.capstan.common.Escapes.escape;

import dev.capstan.common.Trees;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The first of a workload's pods that cannot become ready ({@link PodFailure}), for a verdict. */
final class PodDiagnosis {
  private PodDiagnosis() {}

  /**
   * The first failure among {@code pods} (in name order, for a stable answer), as {@code pod NAME:
   * container C: Reason: message}, or {@code null} when none of them has one.
   */
  static @Nullable String firstFailure(List<? extends Map<?, ?>> pods) {
    List<Map<?, ?>> sorted = new ArrayList<>(pods);
    sorted.sort(Comparator.comparing(p -> Trees.text(p, "metadata", "name")));
    for (Map<?, ?> pod : sorted) {
      PodFailure failure = PodFailure.of(pod);
      if (failure != null) {
        return "pod " + escape(Trees.text(pod, "metadata", "name")) + ": " + failure.explain();
      }
    }
    return null;
  }
}
