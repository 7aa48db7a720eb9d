package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.release.ClusterException;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The release engine's {@link Orchestrator} on Kubernetes, for objects of any kind, through
 * client-java's dynamic API and a REST mapping from discovery (see {@link Discovery}): one generic
 * path, with no per-kind code but the health rules.
 *
 * <ul>
 *   <li>{@link #observe}: one LIST (paged) of the kind in the namespace, filtered to the names
 *       (with a single name, selected by field); the live content without what the server manages
 *       and without the stamp, the stamp, and {@linkplain Drift drift} from {@code managedFields}.
 *   <li>{@link #apply}: one server-side apply (PATCH) under field manager {@code capstan}, forced
 *       (the plan has decided), stamped with the ownership labels and annotations.
 *   <li>{@link #dryRunApply}: the same PATCH with {@code dryRun=All}, for a reviewed plan's diff.
 *   <li>{@link #delete}: a GET and a DELETE (background propagation, with the uid and
 *       resourceVersion read as preconditions), only when the object carries the owner's stamp.
 *   <li>{@link #unstamp}: a GET and a JSON merge patch removing the stamp (keeping {@code
 *       capstan.dev/reclaim-policy}).
 *   <li>{@link #awaitReady}: see {@link HealthWatch}.
 * </ul>
 *
 * <p>Every failed request becomes a {@link ClusterException} naming the operation, kind, object and
 * HTTP status; an interrupted wait or request restores the thread's interrupt flag. Thread-safe.
 */
public final class KubernetesOrchestrator implements Orchestrator {
  /** Annotations an unstamp keeps: they describe the object's data, not its owner. */
  static final Set<String> KEPT_ON_UNSTAMP = Set.of(Stamps.PREFIX + "reclaim-policy");

  private static final Set<String> SERVER_METADATA =
      Set.of(
          "resourceVersion",
          "uid",
          "generation",
          "creationTimestamp",
          "managedFields",
          "selfLink",
          "deletionTimestamp",
          "deletionGracePeriodSeconds");

  private static final Set<String> STAMP_ANNOTATIONS =
      Set.of(Stamps.RELEASE, Stamps.RELEASE_ID, Stamps.REVISION, Stamps.CONTENT_HASH);

  private final DynamicApis apis;
  private final HealthWatch health;

  /** An orchestrator on the given clients. */
  public KubernetesOrchestrator(KubeClients clients) {
    requireNonNull(clients, "clients");
    this.apis = new DynamicApis(clients);
    this.health = new HealthWatch(apis);
  }

  /**
   * How many discovery rounds this orchestrator has read (each is {@code GET /api} and {@code
   * /apis}).
   */
  public int discoveryRounds() {
    return apis.discovery().rounds();
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST (paged) of the kind in the namespace, filtered to {@code names}; with a single
   * name, the LIST selects it by field. Record Secrets are left out of a Secret LIST by label. A
   * kind the cluster does not serve (after reading discovery again once) has no objects.
   */
  @Override
  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
    requireNonNull(kind, "kind");
    requireNonNull(namespace, "namespace");
    if (names.isEmpty()) {
      return List.of();
    }
    Optional<Discovery.Resource> resource = apis.resolve(kind);
    if (resource.isEmpty() || resource.get().namespaced() != kind.namespaced()) {
      return List.of();
    }
    DynamicApis.Api api = apis.api(resource.get());
    String field = names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
    String label = kind.equals(Kind.SECRET) ? ReleaseRecords.NOT_RECORDS : null;
    List<LiveObject> out = new ArrayList<>();
    for (JsonObject raw : api.list(scope(kind, namespace), label, field)) {
      String name = JsonTrees.text(raw, "metadata", "name");
      if (name == null || !names.contains(name)) {
        continue;
      }
      ResourceRef ref = ResourceRef.of(kind, kind.namespaced() ? namespace : "", name);
      if (kind.shared()) {
        out.add(LiveObject.present(ref));
        continue;
      }
      OwnershipStamp stamp = Stamps.read(annotations(raw));
      String drift =
          stamp == null ? null : Drift.of(raw, Stamps.MANAGER_NAME, kind, stamp.contentHash());
      out.add(new LiveObject(ref, content(raw, kind), stamp, drift));
    }
    return out;
  }

  /**
   * The live object as a manifest: without status, without the metadata the server manages and
   * without the stamp; {@code null} when it cannot be one.
   */
  static @Nullable Manifest content(JsonObject raw, Kind kind) {
    JsonObject copy = raw.deepCopy();
    copy.remove("status");
    JsonObject meta = JsonTrees.object(copy, "metadata");
    if (meta != null) {
      SERVER_METADATA.forEach(meta::remove);
      JsonObject labels = JsonTrees.object(meta, "labels");
      if (labels != null) {
        for (String key : new ArrayList<>(labels.keySet())) {
          JsonElement v = labels.get(key);
          if (v.isJsonPrimitive() && Stamps.isStampLabel(key, v.getAsString())) {
            labels.remove(key);
          }
        }
        if (labels.size() == 0) {
          meta.remove("labels");
        }
      }
      JsonObject annotations = JsonTrees.object(meta, "annotations");
      if (annotations != null) {
        STAMP_ANNOTATIONS.forEach(annotations::remove);
        if (annotations.size() == 0) {
          meta.remove("annotations");
        }
      }
    }
    try {
      return Manifest.of(JsonTrees.toJava(copy), null, kind);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static @Nullable Map<String, String> annotations(JsonObject raw) {
    JsonObject annotations = JsonTrees.object(JsonTrees.object(raw, "metadata"), "annotations");
    if (annotations == null) {
      return null;
    }
    Map<String, String> out = new TreeMap<>();
    annotations
        .entrySet()
        .forEach(
            e -> {
              if (e.getValue().isJsonPrimitive()) {
                out.put(e.getKey(), e.getValue().getAsString());
              }
            });
    return out;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply (PATCH) under field manager {@code capstan}, forced: the plan has
   * decided that Capstan's fields win. Without a stamp, the object is written without one (and
   * server-side apply drops the stamp fields Capstan owned).
   */
  @Override
  public void apply(Manifest object, @Nullable OwnershipStamp stamp) {
    requireNonNull(object, "object");
    Kind kind = object.kind();
    Discovery.Resource resource = served(kind, "apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    apis.api(resource)
        .calls
        .applyJson(namespace, object.name(), applyBody(object, stamp), Stamps.MANAGER_NAME);
    if (kind.isCrd()) {
      apis.defined(
          object.get("spec.group") instanceof String g ? g : null,
          object.get("spec.names.kind") instanceof String k ? k : null);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply PATCH with {@code dryRun=All}, of the body {@link #apply} would send,
   * under the same field manager, forced; the result read back as {@link #observe} reads content.
   */
  @Override
  public Manifest dryRunApply(Manifest object, @Nullable OwnershipStamp stamp) {
    requireNonNull(object, "object");
    Kind kind = object.kind();
    Discovery.Resource resource = served(kind, "dry-run apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    JsonObject raw =
        apis.api(resource)
            .calls
            .dryRunApply(namespace, object.name(), applyBody(object, stamp), Stamps.MANAGER_NAME);
    Manifest result = content(raw, kind);
    if (result == null || !result.ref().equals(object.ref())) {
      throw new ClusterException(
          "dry-run apply",
          kind.key(),
          namespace,
          object.name(),
          0,
          "the API server returned an object that cannot be read back as " + object.ref().key(),
          null);
    }
    return result;
  }

  /** The server-side apply body of {@code object}: its content with the stamp, as JSON. */
  private static String applyBody(Manifest object, @Nullable OwnershipStamp stamp) {
    Map<String, Object> body = new LinkedHashMap<>(object.content());
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (body.get("metadata") instanceof Map<?, ?> m) {
      m.forEach((k, v) -> metadata.put(String.valueOf(k), v));
    }
    if (stamp != null) {
      Map<String, String> labels = strings(metadata.get("labels"));
      Map<String, String> annotations = strings(metadata.get("annotations"));
      Stamps.write(stamp, labels, annotations);
      metadata.put("labels", labels);
      metadata.put("annotations", annotations);
    }
    body.put("metadata", metadata);
    return JsonTrees.toJson(body);
  }

  private static Map<String, String> strings(@Nullable Object map) {
    Map<String, String> out = new TreeMap<>();
    if (map instanceof Map<?, ?> m) {
      m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
    }
    return out;
  }

  /**
   * {@inheritDoc}
   *
   * <p>A GET and a DELETE (background propagation, with the read uid and resourceVersion as
   * preconditions), only when the object carries {@code owner}'s stamp.
   */
  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner) {
    requireNonNull(owner, "owner");
    Discovery.Resource resource = served(ref.kind(), "delete", ref);
    return OwnedObjects.delete(
        apis.api(resource).calls,
        scope(ref.kind(), ref.namespace()),
        ref.name(),
        owner,
        "Background");
  }

  /**
   * {@inheritDoc} A GET and a JSON merge patch (conditioned on the resourceVersion) removing the
   * stamp's labels and annotations; {@code capstan.dev/reclaim-policy} stays.
   */
  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner) {
    requireNonNull(owner, "owner");
    Discovery.Resource resource = served(ref.kind(), "unstamp", ref);
    return OwnedObjects.unstamp(
        apis.api(resource).calls,
        scope(ref.kind(), ref.namespace()),
        ref.name(),
        owner,
        KEPT_ON_UNSTAMP);
  }

  /** {@inheritDoc} One CREATE; a namespace that exists already is left as it is. */
  @Override
  public void createNamespace(String name) {
    JsonObject ns = new JsonObject();
    ns.addProperty("apiVersion", "v1");
    ns.addProperty("kind", "Namespace");
    JsonObject meta = new JsonObject();
    meta.addProperty("name", name);
    ns.add("metadata", meta);
    try {
      apis.api(DynamicApis.NAMESPACES).calls.create(new DynamicKubernetesObject(ns));
    } catch (ClusterException e) {
      if (e.status() != 409) {
        throw e;
      }
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Judged with {@code HealthRules}; see {@link HealthWatch} for the requests.
   */
  @Override
  public Readiness awaitReady(List<ResourceRef> objects, Duration timeout) {
    requireNonNull(objects, "objects");
    requireNonNull(timeout, "timeout");
    return health.await(objects, timeout);
  }

  /**
   * {@inheritDoc}
   *
   * <p>From discovery (read again once when the kind is unknown): {@code the cluster does not serve
   * example.com/Widget}, {@code ... at version v2 (it serves v1)}, or a scope that differs.
   */
  @Override
  public Optional<String> checkKind(Kind kind) {
    List<Discovery.Resource> served = apis.served(kind);
    if (served.isEmpty()) {
      return Optional.of("the cluster does not serve " + kind.key());
    }
    Optional<Discovery.Resource> atVersion =
        served.stream().filter(r -> r.version().equals(kind.version())).findFirst();
    if (atVersion.isEmpty()) {
      return Optional.of(
          "the cluster does not serve "
              + kind.key()
              + " at version "
              + kind.version()
              + " (it serves "
              + served.stream().map(Discovery.Resource::version).collect(Collectors.joining(", "))
              + ")");
    }
    if (atVersion.get().namespaced() != kind.namespaced()) {
      return Optional.of(
          atVersion.get().namespaced()
              ? kind.key()
                  + " is namespaced in the cluster, but the release has it cluster-scoped"
                  + " (give it a namespace)"
              : kind.key()
                  + " is cluster-scoped in the cluster, but the release gives it a namespace");
    }
    return Optional.empty();
  }

  private Discovery.Resource served(Kind kind, String operation, ResourceRef ref) {
    Optional<String> problem = checkKind(kind);
    if (problem.isPresent()) {
      throw Errors.RELEASE.translate(
          operation,
          kind.key(),
          ref.namespace(),
          ref.name(),
          new KubeFailure(404, "NotFound", problem.get(), null));
    }
    return apis.resolve(kind).orElseThrow();
  }

  private static @Nullable String scope(Kind kind, String namespace) {
    return kind.namespaced() ? namespace : null;
  }
}
