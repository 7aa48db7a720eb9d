package dev.capstan.controller;

import dev.capstan.common.Trees;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One {@code Release} resource as the controller reads it: its metadata, the tree of its {@code
 * spec} (checked by {@link ReleaseRequest#read}) and its {@code status}. Also the names of the
 * resource's API: group, version, plural, the finalizer and the CustomResourceDefinition.
 *
 * @param key the namespace and name
 * @param uid the object's uid
 * @param generation {@code metadata.generation}: changes with the spec only
 * @param resourceVersion the version read
 * @param deleting whether {@code metadata.deletionTimestamp} is set
 * @param finalizers {@code metadata.finalizers}
 * @param spec the {@code spec} mapping (empty when absent)
 * @param status the {@code status} mapping (empty when absent)
 */
public record ReleaseResource(
    ReleaseKey key,
    String uid,
    long generation,
    String resourceVersion,
    boolean deleting,
    List<String> finalizers,
    Map<String, @Nullable Object> spec,
    Map<String, @Nullable Object> status) {

  /** The API group of {@code Release}. */
  public static final String GROUP = "capstan.dev";

  /** The served version. */
  public static final String VERSION = "v1alpha1";

  /** {@code apiVersion} of a Release. */
  public static final String API_VERSION = GROUP + "/" + VERSION;

  /** The kind. */
  public static final String KIND = "Release";

  /** The resource's plural, in URLs. */
  public static final String PLURAL = "releases";

  /**
   * The finalizer the controller puts on every Release it casts: deleting the Release uninstalls
   * the release first, then the finalizer is removed.
   */
  public static final String FINALIZER = "capstan.dev/uninstall";

  /** The name of the CustomResourceDefinition. */
  public static final String CRD_NAME = PLURAL + "." + GROUP;

  private static final String CRD_RESOURCE = "releases.capstan.dev.yaml";

  /** Copies the lists and maps. */
  public ReleaseResource {
    Objects.requireNonNull(key, "key");
    finalizers = List.copyOf(finalizers);
    spec = Trees.freezeMap(spec);
    status = Trees.freezeMap(status);
  }

  /**
   * Reads a Release from its object tree (maps, lists and scalars, as the API server sends it).
   *
   * @throws IllegalArgumentException when the tree has no namespace or name
   */
  public static ReleaseResource of(Map<?, ?> tree) {
    String namespace = Trees.string(tree, "metadata", "namespace");
    String name = Trees.string(tree, "metadata", "name");
    if (namespace == null || name == null) {
      throw new IllegalArgumentException("a Release needs metadata.namespace and metadata.name");
    }
    List<String> finalizers =
        Trees.at(tree, "metadata", "finalizers") instanceof List<?> list
            ? list.stream().filter(String.class::isInstance).map(String.class::cast).toList()
            : List.of();
    return new ReleaseResource(
        new ReleaseKey(namespace, name),
        Objects.requireNonNullElse(Trees.string(tree, "metadata", "uid"), ""),
        Trees.number(tree, 0, "metadata", "generation"),
        Objects.requireNonNullElse(Trees.string(tree, "metadata", "resourceVersion"), ""),
        Trees.at(tree, "metadata", "deletionTimestamp") != null,
        finalizers,
        mapping(Trees.map(tree, "spec")),
        mapping(Trees.map(tree, "status")));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, @Nullable Object> mapping(@Nullable Map<?, ?> map) {
    return map == null ? Map.of() : (Map<String, @Nullable Object>) map;
  }

  /** This Release with another status (as written by the controller). */
  public ReleaseResource withStatus(Map<String, ? extends @Nullable Object> newStatus) {
    return new ReleaseResource(
        key,
        uid,
        generation,
        resourceVersion,
        deleting,
        finalizers,
        spec,
        Trees.freezeMap(newStatus));
  }

  /**
   * The Releases this one depends on ({@code spec.dependsOn}), read leniently: entries that are not
   * valid are left out (a spec with them is stalled by its own reconcile).
   */
  public java.util.List<ReleaseKey> dependsOn() {
    java.util.List<ReleaseKey> out = new java.util.ArrayList<>();
    if (spec.get("dependsOn") instanceof List<?> list) {
      for (Object o : list) {
        if (o instanceof Map<?, ?> m && m.get("name") instanceof String name && !name.isEmpty()) {
          String ns = m.get("namespace") instanceof String n && !n.isEmpty() ? n : key.namespace();
          out.add(new ReleaseKey(ns, name));
        }
      }
    }
    return out;
  }

  /** Whether the controller's finalizer is on the Release. */
  public boolean hasFinalizer() {
    return finalizers.contains(FINALIZER);
  }

  /**
   * The release name the spec gives ({@code spec.releaseName}), else the Release's own name; read
   * leniently, for what must work even when the spec is not valid (an uninstall).
   */
  public String releaseName() {
    return spec.get("releaseName") instanceof String s && !s.isEmpty() ? s : key.name();
  }

  /**
   * The condition of {@code type} in the status, or null.
   *
   * @param type for example {@code Ready}
   */
  public @Nullable Map<?, ?> condition(String type) {
    if (status.get("conditions") instanceof List<?> conditions) {
      for (Object c : conditions) {
        if (c instanceof Map<?, ?> m && type.equals(m.get("type"))) {
          return m;
        }
      }
    }
    return null;
  }

  /**
   * Whether the Release is Ready for what depends on it: its {@code Ready} condition is {@code
   * True} for its current generation.
   */
  public boolean ready() {
    Map<?, ?> ready = condition("Ready");
    return ready != null
        && "True".equals(ready.get("status"))
        && Trees.number(status, -1, "observedGeneration") == generation;
  }

  /**
   * Reads one Release from the API server (not from a controller's cache).
   *
   * @return the Release, or empty when it does not exist
   * @throws dev.capstan.common.ClusterException when the API server refuses the read
   */
  public static java.util.Optional<ReleaseResource> get(
      io.kubernetes.client.openapi.ApiClient client, ReleaseKey key) {
    var r = KubernetesReleaseObjects.releasesApi(client).get(key.namespace(), key.name());
    if (r.getHttpStatusCode() == 404) {
      return java.util.Optional.empty();
    }
    if (!r.isSuccess()) {
      throw new dev.capstan.common.ClusterException(
          "get",
          KIND,
          key.namespace(),
          key.name(),
          r.getHttpStatusCode(),
          "HTTP " + r.getHttpStatusCode(),
          null);
    }
    return java.util.Optional.of(KubernetesReleaseObjects.resource(r.getObject()));
  }

  /**
   * Whether the cluster serves Release: its CustomResourceDefinition exists and is established.
   *
   * @throws dev.capstan.common.ClusterException when the API server cannot be asked
   */
  public static boolean installed(io.kubernetes.client.openapi.ApiClient client) {
    try {
      io.kubernetes.client.openapi.models.V1CustomResourceDefinition crd =
          new io.kubernetes.client.openapi.apis.ApiextensionsV1Api(client)
              .readCustomResourceDefinition(CRD_NAME)
              .execute();
      return crd.getStatus() != null
          && crd.getStatus().getConditions() != null
          && crd.getStatus().getConditions().stream()
              .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    } catch (io.kubernetes.client.openapi.ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw new dev.capstan.common.ClusterException(
          "get", "CustomResourceDefinition", null, CRD_NAME, e.getCode(), "HTTP " + e.getCode(), e);
    }
  }

  /**
   * The {@code CustomResourceDefinition} of Release, as YAML (what {@code capstan controller crd}
   * prints).
   */
  public static String crdYaml() {
    try (InputStream in = ReleaseResource.class.getResourceAsStream(CRD_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks " + CRD_RESOURCE);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
