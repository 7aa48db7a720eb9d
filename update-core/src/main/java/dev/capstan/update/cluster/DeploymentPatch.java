package dev.capstan.update.cluster;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The only write the applier makes to a workload: container images or env values, plus Deployment
 * metadata labels and annotations. It never touches replicas, resources, probes, other env vars or
 * the pod template's metadata. Its {@link #strategicMergePatch() strategic-merge form} is what a
 * Kubernetes adapter sends.
 *
 * @param workload the Deployment
 * @param containers the container changes, in order; empty for a metadata-only patch
 * @param labels Deployment labels to set (others are kept)
 * @param annotations Deployment annotations to set (others are kept)
 */
public record DeploymentPatch(
    Workload workload,
    List<ContainerPatch> containers,
    Map<String, String> labels,
    Map<String, String> annotations) {

  /** Validates the fields and copies the collections. */
  public DeploymentPatch {
    requireNonNull(workload, "workload");
    containers = List.copyOf(containers);
    labels = Maps.sorted(labels);
    annotations = Maps.sorted(annotations);
  }

  /**
   * Tells whether a Deployment already has every image (or env value) this patch would write.
   *
   * @param state the live Deployment
   * @return true when patching would not change any container
   */
  public boolean satisfiedBy(DeploymentState state) {
    for (ContainerPatch change : containers) {
      Optional<ContainerState> c = state.container(change.container());
      if (c.isEmpty()) {
        return false;
      }
      Optional<String> live =
          change instanceof ContainerPatch.SetEnv set
              ? c.get().envValue(set.envVar())
              : Optional.of(c.get().image());
      if (!live.equals(Optional.of(change.image()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Applies this patch to a Deployment the way a strategic-merge patch would: containers are merged
   * by name, env vars by name, labels and annotations by key; nothing else changes.
   *
   * @param state the Deployment before the patch
   * @return the Deployment after the patch
   * @throws IllegalArgumentException when the template has no container of a patched name
   */
  public DeploymentState applyTo(DeploymentState state) {
    DeploymentState out = state;
    for (ContainerPatch change : containers) {
      ContainerState c =
          out.container(change.container())
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "deployment "
                              + workload.key()
                              + " has no container \""
                              + change.container()
                              + "\""));
      out =
          out.withContainer(
              change instanceof ContainerPatch.SetEnv set
                  ? c.withEnv(set.envVar(), set.image())
                  : c.withImage(change.image()));
    }
    for (Map.Entry<String, String> e : labels.entrySet()) {
      out = out.withLabel(e.getKey(), e.getValue());
    }
    for (Map.Entry<String, String> e : annotations.entrySet()) {
      out = out.withAnnotation(e.getKey(), e.getValue());
    }
    return out;
  }

  /**
   * Renders the patch as a strategic-merge patch body (a plain tree, ready for a JSON writer):
   * {@code metadata.labels}, {@code metadata.annotations} (each only when non-empty) and {@code
   * spec.template.spec.containers} (only when containers change), one entry per container name with
   * its {@code image} and/or {@code env} entries.
   *
   * @return the patch body
   */
  public Map<String, Object> strategicMergePatch() {
    Map<String, Map<String, Object>> byName = new LinkedHashMap<>();
    for (ContainerPatch change : containers) {
      Map<String, Object> entry =
          byName.computeIfAbsent(
              change.container(),
              name -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                return m;
              });
      if (change instanceof ContainerPatch.SetEnv set) {
        @SuppressWarnings("unchecked")
        List<Object> env =
            (List<Object>) entry.computeIfAbsent("env", k -> new ArrayList<Object>());
        env.add(Map.of("name", set.envVar(), "value", set.image()));
      } else {
        entry.put("image", change.image());
      }
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (!labels.isEmpty()) {
      metadata.put("labels", labels);
    }
    if (!annotations.isEmpty()) {
      metadata.put("annotations", annotations);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    if (!metadata.isEmpty()) {
      body.put("metadata", metadata);
    }
    if (!byName.isEmpty()) {
      body.put(
          "spec",
          Map.of("template", Map.of("spec", Map.of("containers", List.copyOf(byName.values())))));
    }
    return body;
  }
}
