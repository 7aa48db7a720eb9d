package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the planner needs to know about one live Deployment.
 *
 * @param workload namespace and name
 * @param labels the Deployment's metadata labels
 * @param annotations the Deployment's metadata annotations
 * @param selector the Deployment's {@code spec.selector.matchLabels}
 * @param containers the pod template's containers, in spec order
 */
public record DeploymentState(
    Workload workload,
    Map<String, String> labels,
    Map<String, String> annotations,
    Map<String, String> selector,
    List<ContainerState> containers) {

  /** Validates the fields and copies the collections. */
  public DeploymentState {
    requireNonNull(workload, "workload");
    labels = Maps.sorted(labels);
    annotations = Maps.sorted(annotations);
    selector = Maps.sorted(selector);
    containers = List.copyOf(containers);
  }

  /**
   * Creates a Deployment with no labels or annotations and the selector {@code app=<name>}.
   *
   * @param workload namespace and name
   * @param containers the containers
   * @return the deployment
   */
  public static DeploymentState of(Workload workload, ContainerState... containers) {
    return new DeploymentState(
        workload, Map.of(), Map.of(), Map.of("app", workload.deployment()), List.of(containers));
  }

  /**
   * Returns one container.
   *
   * @param name the container name
   * @return the container, or empty when the template has no container of that name
   */
  public Optional<ContainerState> container(String name) {
    return containers.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /**
   * Returns a copy with one container replaced (by name) or appended.
   *
   * @param container the container
   * @return the copy
   */
  public DeploymentState withContainer(ContainerState container) {
    List<ContainerState> out = new ArrayList<>(containers);
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).name().equals(container.name())) {
        out.set(i, container);
        return new DeploymentState(workload, labels, annotations, selector, out);
      }
    }
    out.add(container);
    return new DeploymentState(workload, labels, annotations, selector, out);
  }

  /**
   * Returns a copy with one label set.
   *
   * @param key the label key
   * @param value the label value
   * @return the copy
   */
  public DeploymentState withLabel(String key, String value) {
    return new DeploymentState(
        workload, Maps.with(labels, key, value), annotations, selector, containers);
  }

  /**
   * Returns a copy with one annotation set.
   *
   * @param key the annotation key
   * @param value the annotation value
   * @return the copy
   */
  public DeploymentState withAnnotation(String key, String value) {
    return new DeploymentState(
        workload, labels, Maps.with(annotations, key, value), selector, containers);
  }

  /**
   * Returns a copy with another selector.
   *
   * @param matchLabels the selector's match labels
   * @return the copy
   */
  public DeploymentState withSelector(Map<String, String> matchLabels) {
    return new DeploymentState(workload, labels, annotations, matchLabels, containers);
  }
}
