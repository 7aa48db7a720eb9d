package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.health.Selectors;
import java.util.List;
import java.util.Map;

/**
 * What the planner needs to know about one pod: its labels (to match Deployment selectors) and its
 * container statuses (to learn the digest actually running).
 *
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param labels the pod's labels
 * @param containers the container statuses
 */
public record PodState(
    String namespace, String name, Map<String, String> labels, List<ContainerStatus> containers) {
  /** Validates the fields and copies the collections. */
  public PodState {
    requireNonNull(namespace, "namespace");
    requireNonNull(name, "name");
    labels = Maps.sorted(labels);
    containers = List.copyOf(containers);
  }

  /**
   * Tells whether this pod is selected by a Deployment's match labels.
   *
   * @param selector the match labels
   * @return true when every selector label is on the pod; false for an empty selector
   */
  public boolean matches(Map<String, String> selector) {
    return Selectors.selects(selector, labels);
  }
}
