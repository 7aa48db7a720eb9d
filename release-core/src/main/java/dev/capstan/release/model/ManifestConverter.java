package dev.capstan.release.model;

import java.util.Map;

/**
 * Turns the objects of a Kubernetes client library's model into manifest trees, so that {@link
 * Payloads.Builder#manifest(Object)} and {@link Manifest#ofModel(Object)} take them as they are.
 * The cores know no client library; a module that does provides a converter as a {@link
 * java.util.ServiceLoader} service: {@code release-k8s} converts client-java's models ({@code
 * V1Deployment}, any {@code KubernetesObject}) through client-java's own JSON mapping, so {@code
 * IntOrString}, {@code Quantity} and timestamps read as the API server would.
 *
 * <p>A host may provide one for another model the same way (a class with a public no-argument
 * constructor, named in {@code META-INF/services/dev.capstan.release.model.ManifestConverter}, or
 * {@code provides} in its module descriptor); for fabric8's models, which Jackson maps, one line
 * does without: docs/manifests.md, "Objects of a client library".
 */
public interface ManifestConverter {
  /** Whether this converter knows {@code model}'s type. */
  boolean accepts(Object model);

  /**
   * {@code model} as the tree a JSON document of it holds: maps with string keys, lists, strings,
   * booleans and numbers (nulls are left out either way).
   *
   * @throws IllegalArgumentException if the object cannot be converted, naming why
   */
  Map<String, ?> toTree(Object model);
}
