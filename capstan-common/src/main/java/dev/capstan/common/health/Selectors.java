package dev.capstan.common.health;

import java.util.Map;

/** Which pods a workload's selector takes: the one rule both cores match pods with. */
public final class Selectors {
  private Selectors() {}

  /**
   * Whether a workload's {@code spec.selector.matchLabels} select an object with {@code labels}:
   * every selector label is on the object with the same value. An empty selector selects nothing (a
   * workload without one owns no pod that could fail it).
   *
   * @param matchLabels the selector's labels
   * @param labels the object's labels
   * @return whether the object is selected
   */
  public static boolean selects(Map<String, String> matchLabels, Map<String, String> labels) {
    if (matchLabels.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, String> e : matchLabels.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
