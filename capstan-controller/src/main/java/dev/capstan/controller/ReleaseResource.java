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
 * @param annotations {@code metadata.annotations} (the manual reconcile requests are read there)
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
    Map<String, String> annotations,
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
   * the release first (when its latest revision is this Release's), then the finalizer is removed.
   */
  public static final String FINALIZER = "capstan.dev/uninstall";

  /** The name of the CustomResourceDefinition. */
  public static final String CRD_NAME = PLURAL + "." + GROUP;

  /**
   * The annotation that asks for a reconcile now: any new value (say, the time) makes the
   * controller reconcile the Release at once and write the value to {@code
   * status.lastHandledReconcileAt} (what {@code capstan controller reconcile} sets).
   */
  public static final String RECONCILE_REQUEST = "reconcile.capstan.dev/requestedAt";

  /** Flux's annotation of the same meaning ({@code flux reconcile}), honoured as Capstan's own. */
  public static final String FLUX_RECONCILE_REQUEST = "reconcile.fluxcd.io/requestedAt";

  /**
   * How a revision the controller cast names its source ({@code Release.source()} in the records):
   * this prefix, then the Release's {@code namespace/name}; the CLI reads it to warn before it
   * changes a release that a Release resource manages.
   */
  public static final String SOURCE_PREFIX = API_VERSION + " " + KIND + " ";

  private static final String CRD_RESOURCE = "releases.capstan.dev.yaml";

  /** Copies the lists and maps. */
  public ReleaseResource {
    Objects.requireNonNull(key, "key");
    finalizers = List.copyOf(finalizers);
    annotations = Map.copyOf(annotations);
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
    Map<String, String> annotations = new java.util.LinkedHashMap<>();
    Map<?, ?> given = Trees.map(tree, "metadata", "annotations");
    if (given != null) {
      given.forEach(
          (k, v) -> {
            if (k instanceof String key && v instanceof String value) {
              annotations.put(key, value);
            }
          });
    }
    return new ReleaseResource(
        new ReleaseKey(namespace, name),
        Objects.requireNonNullElse(Trees.string(tree, "metadata", "uid"), ""),
        Trees.number(tree, 0, "metadata", "generation"),
        Objects.requireNonNullElse(Trees.string(tree, "metadata", "resourceVersion"), ""),
        Trees.at(tree, "metadata", "deletionTimestamp") != null,
        finalizers,
        annotations,
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
        annotations,
        spec,
        Trees.freezeMap(newStatus));
  }

  /**
   * The manual reconcile request the annotations hold: {@value #RECONCILE_REQUEST}, or Flux's
   * {@value #FLUX_RECONCILE_REQUEST}; with both, the greater value (both tools write a time, which
   * compares as text); null when there is none.
   */
  public @Nullable String reconcileRequest() {
    String own = annotations.get(RECONCILE_REQUEST);
    String flux = annotations.get(FLUX_RECONCILE_REQUEST);
    if (own == null || own.isEmpty()) {
      return flux == null || flux.isEmpty() ? null : flux;
    }
    return flux == null || flux.compareTo(own) <= 0 ? own : flux;
  }

  /**
   * Whether a manual reconcile request waits: {@link #reconcileRequest()} is set and is not the
   * value in {@code status.lastHandledReconcileAt}.
   */
  public boolean reconcileRequested() {
    String request = reconcileRequest();
    return request != null && !request.equals(status.get("lastHandledReconcileAt"));
  }

  /** The source a revision this controller casts for {@code key} records. */
  public static String source(ReleaseKey key) {
    return SOURCE_PREFIX + key;
  }

  /**
   * The Release resource a recorded revision's source names, when a controller cast it ({@link
   * #source}); empty otherwise.
   *
   * @param source {@code Release.source()} of a revision, or null
   */
  public static java.util.Optional<ReleaseKey> managedBy(@Nullable String source) {
    if (source == null || !source.startsWith(SOURCE_PREFIX)) {
      return java.util.Optional.empty();
    }
    String[] parts = source.substring(SOURCE_PREFIX.length()).split("/", -1);
    return parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty()
        ? java.util.Optional.of(new ReleaseKey(parts[0], parts[1]))
        : java.util.Optional.empty();
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
    try {
      return new ReleaseApi(client, null).get(key).map(KubernetesReleaseObjects::resource);
    } catch (io.kubernetes.client.openapi.ApiException e) {
      throw new dev.capstan.common.ClusterException(
          "get",
          KIND,
          key.namespace(),
          key.name(),
          e.getCode(),
          e.getCode() == 0 && e.getCause() != null
              ? dev.capstan.common.Escapes.escape(String.valueOf(e.getCause().getMessage()))
              : "HTTP " + e.getCode(),
          e);
    }
  }

  /**
   * Changes one Release on the API server with a JSON merge patch, as {@code kubectl patch
   * --type=merge} does (what {@code capstan controller suspend}, {@code resume} and {@code
   * reconcile} send).
   *
   * @param json the merge patch, e.g. {@code {"spec":{"suspend":true}}}
   * @throws dev.capstan.common.ClusterException when the API server refuses it (404: no such
   *     Release)
   */
  public static void patch(
      io.kubernetes.client.openapi.ApiClient client, ReleaseKey key, String json) {
    io.kubernetes.client.openapi.apis.CustomObjectsApi api =
        new io.kubernetes.client.openapi.apis.CustomObjectsApi(client);
    try {
      KubernetesReleaseObjects.mergePatch(
          client,
          () ->
              api.patchNamespacedCustomObject(
                      GROUP,
                      VERSION,
                      key.namespace(),
                      PLURAL,
                      key.name(),
                      new io.kubernetes.client.custom.V1Patch(json))
                  .buildCall(null));
    } catch (io.kubernetes.client.openapi.ApiException e) {
      throw new dev.capstan.common.ClusterException(
          "patch",
          KIND,
          key.namespace(),
          key.name(),
          e.getCode(),
          e.getCode() == 404
              ? "Release " + key + " does not exist"
              : KubernetesReleaseObjects.detail(e),
          null);
    }
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
