package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.model.EnsuredNamespace;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 *       and without the stamp, the stamp, and {@linkplain Drift drift} from {@code managedFields};
 *       for a CustomResourceDefinition, its {@code status} too. A single Namespace is one GET
 *       instead: a RoleBinding in a namespace can grant {@code get} on that namespace, while {@code
 *       list} of namespaces takes a ClusterRoleBinding, so an account confined to its namespace (a
 *       Release's service account) can plan a release there.
 *   <li>{@link #apply}: stamped with the ownership labels and annotations, one server-side apply
 *       (PATCH) under field manager {@code capstan}, forced (the plan has decided). An update
 *       carries the observed {@code metadata.uid} and {@code resourceVersion} in the body as
 *       preconditions; a create ({@link Precondition.Absent}) carries {@link #CREATE_ONLY_VERSION}
 *       as its {@code resourceVersion}, which no stored object has: the API server creates an
 *       absent object (ignoring it) and refuses an existing one with 409 Conflict. The created
 *       fields are Capstan's apply entry's, so a later apply that drops one removes it.
 *   <li>{@link #dryRunApply}: the server-side apply PATCH an update would send, with {@code
 *       dryRun=All}, for a reviewed plan's diff; {@link #verifyApply}: the very PATCH {@link
 *       #apply} sends, with {@code dryRun=All}, for a verified plan.
 *   <li>{@link #delete}: with the observed uid and resourceVersion, one DELETE with them as
 *       preconditions (background propagation); without, a GET and such a DELETE, only when the
 *       object carries the owner's stamp.
 *   <li>{@link #unstamp}: a JSON merge patch removing the stamp (keeping {@code
 *       capstan.dev/reclaim-policy}) conditioned on the resourceVersion (observed, or read by a
 *       GET).
 *   <li>{@link #awaitReady}: see {@link HealthWatch}.
 *   <li>{@link #awaitDeleted}: see {@link DeletionWatch}.
 * </ul>
 *
 * <p>A conditioned write that the API server refuses with 409 throws {@link
 * PreconditionFailedException}.
 *
 * <p>Every failed request becomes a {@link ClusterException} naming the operation, kind, object and
 * HTTP status; an interrupted wait or request restores the thread's interrupt flag. Thread-safe.
 */
public final class KubernetesOrchestrator implements Orchestrator {
  /** Annotations an unstamp keeps: they describe the object's data, not its owner. */
  static final Set<String> KEPT_ON_UNSTAMP = Set.of(Stamps.PREFIX + "reclaim-policy");

  /**
   * The {@code metadata.resourceVersion} a create's server-side apply carries: the largest value
   * the API server parses (an unsigned 64-bit storage revision), which no stored object reaches.
   * Measured on kube-apiserver 1.36: an apply with it creates an absent object (a create ignores
   * the resourceVersion) and is refused with 409 Conflict ("the object has been modified") when the
   * object exists, so a create is one request that cannot take over an object that appeared since
   * the plan. (A {@code metadata.uid} cannot serve: an apply carrying one is refused for an absent
   * object.)
   */
  static final String CREATE_ONLY_VERSION = "18446744073709551615";

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
  private final DeletionWatch deletions;
  private final HookCompletions completions;

  /** An orchestrator on the given clients. */
  public KubernetesOrchestrator(KubeClients clients) {
    requireNonNull(clients, "clients");
    this.apis = new DynamicApis(clients);
    this.health = new HealthWatch(apis);
    this.deletions = new DeletionWatch(apis);
    this.completions = new HookCompletions(apis);
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
   * name, the LIST selects it by field (a single Namespace is one GET). Record Secrets are left out
   * of a Secret LIST by label. A kind the cluster does not serve (after reading discovery again
   * once) has no objects.
   */
  @Override
  public List<LiveObject> observe(Kind kind, String namespace, Set<String> names) {
    return observe(kind, namespace, names, Map.of());
  }

  /**
   * {@inheritDoc}
   *
   * <p>The same one LIST; what Capstan applied decides only which fields other managers own are
   * drift ({@link Drift}), so it costs no request.
   */
  @Override
  public List<LiveObject> observe(
      Kind kind, String namespace, Set<String> names, Map<String, Manifest> applied) {
    requireNonNull(kind, "kind");
    requireNonNull(applied, "applied");
    requireNonNull(namespace, "namespace");
    List<LiveObject> out = new ArrayList<>();
    read(kind, namespace, names, applied, null, out);
    return out;
  }

  /**
   * {@inheritDoc}
   *
   * <p>With several names of a kind Capstan stamps, the one LIST selects by the stamp's labels
   * ({@link Stamps#selector}): the owner's objects alone, not every object of the kind in the
   * namespace. Names it does not find (deleted, or their labels edited away) are read again as
   * {@link #observe(Kind, String, Set, Map)} reads them, in a second request.
   */
  @Override
  public List<LiveObject> observeOwned(
      Kind kind,
      String namespace,
      Set<String> names,
      Map<String, Manifest> applied,
      ReleaseIdentity owner) {
    requireNonNull(kind, "kind");
    requireNonNull(applied, "applied");
    requireNonNull(namespace, "namespace");
    String selector = Stamps.selector(owner);
    if (selector == null || names.size() < 2 || kind.equals(Kind.NAMESPACE) || kind.shared()) {
      return observe(kind, namespace, names, applied);
    }
    List<LiveObject> out = new ArrayList<>();
    read(kind, namespace, names, applied, selector, out);
    if (out.size() < names.size()) {
      Set<String> missing = new TreeSet<>(names);
      out.forEach(o -> missing.remove(o.ref().name()));
      read(kind, namespace, missing, applied, null, out);
    }
    return out;
  }

  /** The largest LIST page an observation asks for. */
  static final int MAX_OBSERVATION_PAGE = 5000;

  /**
   * The LIST page size for observing {@code wanted} names: room for them and as many other objects
   * of the kind (within {@link ResourceApi#PAGE_SIZE} and {@link #MAX_OBSERVATION_PAGE}), so a
   * namespace holding little else, such as a fleet's releases observed together, comes in one page.
   */
  static int observationPage(int wanted) {
    return Math.max(ResourceApi.PAGE_SIZE, Math.min(2 * wanted, MAX_OBSERVATION_PAGE));
  }

  /**
   * Adds to {@code out} the objects among {@code names} that one LIST returns: by name for one
   * name, else of the whole namespace or, with {@code ownerSelector}, of the objects it selects.
   */
  private void read(
      Kind kind,
      String namespace,
      Set<String> names,
      Map<String, Manifest> applied,
      @Nullable String ownerSelector,
      List<LiveObject> out) {
    if (names.isEmpty()) {
      return;
    }
    Optional<Discovery.Resource> resource = apis.resolve(kind);
    if (resource.isEmpty() || resource.get().namespaced() != kind.namespaced()) {
      return;
    }
    DynamicApis.Api api = apis.api(resource.get());
    String field =
        names.size() == 1 && ownerSelector == null
            ? "metadata.name=" + names.iterator().next()
            : null;
    List<String> labels = new ArrayList<>();
    if (ownerSelector != null) {
      labels.add(ownerSelector);
    }
    if (kind.equals(Kind.SECRET)) {
      labels.add(ReleaseRecords.NOT_RECORDS);
    }
    String label = labels.isEmpty() ? null : String.join(",", labels);
    List<JsonObject> found =
        kind.equals(Kind.NAMESPACE) && names.size() == 1
            ? api.calls.getRaw(null, names.iterator().next()).map(api::typed).stream().toList()
            : api.list(scope(kind, namespace), label, field, observationPage(names.size()));
    for (JsonObject raw : found) {
      String name = JsonTrees.text(raw, "metadata", "name");
      if (name == null || !names.contains(name)) {
        continue;
      }
      ResourceRef ref = ResourceRef.of(kind, kind.namespaced() ? namespace : "", name);
      if (kind.equals(Kind.NAMESPACE)) {
        out.add(
            new LiveObject(
                ref,
                content(raw, kind),
                null,
                null,
                JsonTrees.text(raw, "metadata", "uid"),
                JsonTrees.text(raw, "metadata", "resourceVersion"),
                ensuredBy(raw),
                null));
        continue;
      }
      if (kind.shared()) {
        out.add(LiveObject.present(ref));
        continue;
      }
      OwnershipStamp stamp = Stamps.read(annotations(raw));
      Manifest content = content(raw, kind);
      Drift.Finding drift =
          stamp == null
              ? Drift.Finding.NONE
              : Drift.find(
                  raw, content, Stamps.MANAGER_NAME, kind, stamp.contentHash(), applied.get(name));
      // a CRD's status (its storedVersions) is what the CRD safety gate reads; other statuses are
      // not converted (health reads them from its own watch)
      JsonObject status = kind.isCrd() ? JsonTrees.object(raw, "status") : null;
      out.add(
          new LiveObject(
              ref,
              content,
              stamp,
              drift.reason(),
              JsonTrees.text(raw, "metadata", "uid"),
              JsonTrees.text(raw, "metadata", "resourceVersion"),
              List.of(),
              status == null ? null : JsonTrees.toJava(status),
              drift.fields()));
    }
  }

  /**
   * The live object as a manifest: without status, without the metadata the server manages and
   * without the stamp; {@code null} when it cannot be one.
   */
  static @Nullable Manifest content(JsonObject raw, Kind kind) {
    // converted as it is read, leaving out what is dropped: no copy of the JSON tree first (a
    // CRD's is a megabyte), and raw stays as the server sent it, for drift
    Map<String, Object> tree = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> e : raw.entrySet()) {
      if (e.getKey().equals("status")) {
        continue;
      }
      Object value =
          e.getKey().equals("metadata") && e.getValue() instanceof JsonObject meta
              ? contentMetadata(meta)
              : JsonTrees.toJavaValue(e.getValue());
      if (value != null) {
        tree.put(e.getKey(), value);
      }
    }
    try {
      return Manifest.of(tree, null, kind);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The metadata of {@link #content}: without the server's fields and the stamp. */
  private static Map<String, Object> contentMetadata(JsonObject meta) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> e : meta.entrySet()) {
      String key = e.getKey();
      if (SERVER_METADATA.contains(key)) {
        continue;
      }
      Object value;
      if (key.equals("labels") && e.getValue() instanceof JsonObject labels) {
        Map<String, Object> kept = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> l : labels.entrySet()) {
          JsonElement v = l.getValue();
          if (!(v.isJsonPrimitive() && Stamps.isStampLabel(l.getKey(), v.getAsString()))) {
            putValue(kept, l.getKey(), v);
          }
        }
        value = kept.isEmpty() ? null : kept;
      } else if (key.equals("annotations") && e.getValue() instanceof JsonObject annotations) {
        Map<String, Object> kept = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> a : annotations.entrySet()) {
          if (!STAMP_ANNOTATIONS.contains(a.getKey())) {
            putValue(kept, a.getKey(), a.getValue());
          }
        }
        value = kept.isEmpty() ? null : kept;
      } else {
        value = JsonTrees.toJavaValue(e.getValue());
      }
      if (value != null) {
        out.put(key, value);
      }
    }
    return out;
  }

  private static void putValue(Map<String, Object> map, String key, JsonElement json) {
    Object value = JsonTrees.toJavaValue(json);
    if (value != null) {
      map.put(key, value);
    }
  }

  /**
   * The releases whose ensure field manager ({@code capstan/NS/NAME}) holds fields of the object,
   * from its {@code managedFields}.
   */
  static List<String> ensuredBy(JsonObject raw) {
    List<String> out = new ArrayList<>();
    JsonObject meta = JsonTrees.object(raw, "metadata");
    if (meta != null && meta.get("managedFields") instanceof com.google.gson.JsonArray entries) {
      for (JsonElement entry : entries) {
        JsonElement manager = entry.isJsonObject() ? entry.getAsJsonObject().get("manager") : null;
        if (manager != null && manager.isJsonPrimitive()) {
          EnsuredNamespace.releaseOf(manager.getAsString()).ifPresent(out::add);
        }
      }
    }
    return out;
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
   * <p>{@code true}: each {@link #observe} is one LIST of its own, on the shared connection pool.
   */
  @Override
  public boolean observesConcurrently() {
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply (PATCH) under field manager {@code capstan}, forced: the plan has
   * decided that Capstan's fields win. Without a stamp, the object is written without one (and
   * server-side apply drops the stamp fields Capstan owned).
   */
  @Override
  public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    requireNonNull(object, "object");
    requireNonNull(precondition, "precondition");
    Kind kind = object.kind();
    Discovery.Resource resource = served(kind, "apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    ResourceApi<DynamicKubernetesObject, DynamicKubernetesListObject> calls =
        apis.api(resource).calls;
    Map<String, Object> body = applyBody(object, stamp, precondition);
    try {
      DynamicKubernetesObject written =
          calls.applyJson(namespace, object.name(), JsonTrees.toJson(body), Stamps.MANAGER_NAME);
      if (written.getMetadata() != null) {
        health.written(object.ref(), written.getMetadata().getResourceVersion(), written.getRaw());
      }
    } catch (ClusterException e) {
      throw fenced(
          e,
          precondition instanceof Precondition.Absent ? "create" : "apply",
          object.ref(),
          precondition);
    }
    if (kind.isCrd()) {
      apis.defined(
          object.get("spec.group") instanceof String g ? g : null,
          object.get("spec.names.kind") instanceof String k ? k : null);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>With fields to give up on an observed object: a GET, and when Capstan's apply owns one of
   * them a merge patch of its managed fields without them ({@link FieldManagers#giveUp}), then the
   * apply on the patched resourceVersion.
   */
  @Override
  public void apply(
      Manifest object,
      @Nullable OwnershipStamp stamp,
      Precondition precondition,
      List<String> givenUp) {
    Precondition at = precondition;
    if (!givenUp.isEmpty() && precondition instanceof Precondition.Observed observed) {
      Discovery.Resource resource = served(object.kind(), "apply", object.ref());
      at =
          FieldManagers.giveUp(
              apis.api(resource).calls,
              object.kind().namespaced() ? object.namespace() : null,
              object.ref(),
              observed,
              givenUp);
    }
    apply(object, stamp, at);
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
            .dryRunApply(
                namespace,
                object.name(),
                JsonTrees.toJson(applyBody(object, stamp)),
                Stamps.MANAGER_NAME);
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

  /**
   * {@inheritDoc}
   *
   * <p>One server-side apply PATCH with {@code dryRun=All} of the body {@link #apply} would send,
   * preconditions included, under the same field manager, forced, through the same client (so as
   * the same identity). A refusal is an answer with HTTP 400, 403, 404, 409 or 422 (validation,
   * admission, quota, a missing namespace, a precondition, an immutable field), worded as {@link
   * ClusterException} words it. The authorizer's 403 ({@code User "..." cannot patch resource ...})
   * is no verdict on the object but on the identity's rights, and throws, as any other failure
   * does.
   */
  @Override
  public Optional<String> verifyApply(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    requireNonNull(object, "object");
    Kind kind = object.kind();
    Discovery.Resource resource = served(kind, "dry-run apply", object.ref());
    String namespace = kind.namespaced() ? object.namespace() : null;
    String body = JsonTrees.toJson(applyBody(object, stamp, precondition));
    try {
      apis.api(resource).calls.dryRunApply(namespace, object.name(), body, Stamps.MANAGER_NAME);
      return Optional.empty();
    } catch (ClusterException e) {
      boolean unauthorized =
          e.status() == 403 && String.valueOf(e.getMessage()).contains(" cannot patch resource ");
      if (Set.of(400, 403, 404, 409, 422).contains(e.status()) && !unauthorized) {
        return Optional.of(String.valueOf(e.getMessage()));
      }
      throw e;
    }
  }

  /**
   * The server-side apply body of {@code object} as {@link #apply} sends it: with the stamp, and
   * {@code precondition} as metadata (a create's {@link #CREATE_ONLY_VERSION}, an update's observed
   * uid and resourceVersion).
   */
  private static Map<String, Object> applyBody(
      Manifest object, @Nullable OwnershipStamp stamp, Precondition precondition) {
    Map<String, Object> body = applyBody(object, stamp);
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata =
        (Map<String, Object>) requireNonNull(body.get("metadata"), "metadata");
    if (precondition instanceof Precondition.Absent) {
      // an existing object fails with 409 Conflict (modified); see CREATE_ONLY_VERSION
      metadata.put("resourceVersion", CREATE_ONLY_VERSION);
    } else if (precondition instanceof Precondition.Observed observed) {
      // server-side apply honours both as preconditions: a changed object fails with 409
      // Conflict (modified), a re-created or deleted one with 409 Conflict (uid mismatch)
      metadata.put("uid", observed.uid());
      metadata.put("resourceVersion", observed.resourceVersion());
    }
    return body;
  }

  /**
   * The server-side apply body of {@code object}: its content with the stamp, and a mutable copy of
   * its metadata under {@code metadata}.
   */
  private static Map<String, Object> applyBody(Manifest object, @Nullable OwnershipStamp stamp) {
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
    return body;
  }

  /** A 409 on a conditioned write is the precondition failing: the write was fenced. */
  private static RuntimeException fenced(
      ClusterException e, String operation, ResourceRef ref, Precondition precondition) {
    if (e.status() != 409 || precondition instanceof Precondition.None) {
      return e;
    }
    String message = String.valueOf(e.getMessage());
    int at = message.indexOf("(HTTP 409): ");
    String detail = at < 0 ? message : message.substring(at + "(HTTP 409): ".length());
    return new PreconditionFailedException(operation, ref, precondition, 409, detail, e);
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
  public boolean delete(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(owner, "owner");
    Discovery.Resource resource = served(ref.kind(), "delete", ref);
    if (precondition instanceof Precondition.Observed observed) {
      try {
        return apis.api(resource)
            .calls
            .delete(
                scope(ref.kind(), ref.namespace()),
                ref.name(),
                observed.uid(),
                observed.resourceVersion(),
                "Background");
      } catch (ClusterException e) {
        throw fenced(e, "delete", ref, precondition);
      }
    }
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
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner, Precondition precondition) {
    requireNonNull(owner, "owner");
    Discovery.Resource resource = served(ref.kind(), "unstamp", ref);
    if (precondition instanceof Precondition.Observed observed) {
      try {
        var calls = apis.api(resource).calls;
        String namespace = scope(ref.kind(), ref.namespace());
        // Capstan's field-manager entry goes with its stamp, so that another tool's later
        // server-side apply of the kept object meets no conflict with a manager that left
        calls.patch(
            namespace,
            ref.name(),
            V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
            FieldManagers.unstampPatch(
                calls,
                namespace,
                ref,
                observed,
                Stamps.removalPatch(
                    Stamps.stampOnly(), observed.resourceVersion(), KEPT_ON_UNSTAMP)),
            Stamps.MANAGER_NAME);
        return true;
      } catch (ClusterException e) {
        if (e.status() == 404) {
          return false;
        }
        throw fenced(e, "unstamp", ref, precondition);
      }
    }
    return OwnedObjects.unstamp(
        apis.api(resource).calls,
        scope(ref.kind(), ref.namespace()),
        ref.name(),
        owner,
        KEPT_ON_UNSTAMP);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST of the kind at its version across every namespace, with {@code limit}; empty when
   * the kind is not served at that version.
   */
  @Override
  public Optional<Instances> instances(Kind kind, int limit) {
    Optional<Discovery.Resource> resource = apis.resolve(kind);
    if (resource.isEmpty()) {
      return Optional.empty();
    }
    boolean[] more = new boolean[1];
    List<ResourceRef> found = new ArrayList<>();
    for (JsonObject raw : apis.api(resource.get()).calls.firstPage(limit, more).items()) {
      String name = JsonTrees.text(raw, "metadata", "name");
      if (name != null) {
        String namespace = JsonTrees.text(raw, "metadata", "namespace");
        found.add(
            ResourceRef.of(kind, kind.namespaced() && namespace != null ? namespace : "", name));
      }
    }
    return Optional.of(new Instances(found, more[0]));
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
   * <p>One server-side apply (PATCH) of the namespace's {@code apiVersion}, {@code kind}, name,
   * labels and annotations under the release's field manager ({@code
   * EnsuredNamespace.fieldManager}), forced, without preconditions: it creates a missing namespace,
   * and applying it twice, or from two releases at once, is safe.
   */
  @Override
  public void ensureNamespace(Manifest namespace, String releaseNamespace, String releaseName) {
    requireNonNull(namespace, "namespace");
    if (!namespace.kind().equals(Kind.NAMESPACE)) {
      throw new IllegalArgumentException("not a Namespace: " + namespace.ref().key());
    }
    apis.api(DynamicApis.NAMESPACES)
        .calls
        .applyJson(
            null,
            namespace.name(),
            JsonTrees.toJson(EnsuredNamespace.of(namespace).toManifest().content()),
            EnsuredNamespace.fieldManager(releaseNamespace, releaseName));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Judged with {@code HealthRules}; see {@link HealthWatch} for the requests.
   */
  @Override
  public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
    requireNonNull(objects, "objects");
    requireNonNull(wait, "wait");
    return health.await(objects, wait);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One LIST of it by name and, while it runs, a WATCH; for a failed Job one LIST of its pods;
   * see {@link HookCompletions}.
   */
  @Override
  public Readiness awaitCompletion(ResourceRef ref, Duration timeout) {
    served(ref.kind(), "watch", ref);
    return completions.await(ref, timeout);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Per kind and namespace one LIST and, while one of them still exists, a WATCH for their
   * {@code DELETED} events; see {@link DeletionWatch}.
   */
  @Override
  public Readiness awaitDeleted(List<ResourceRef> objects, Duration timeout) {
    requireNonNull(objects, "objects");
    requireNonNull(timeout, "timeout");
    return objects.isEmpty() ? Readiness.ready() : deletions.await(objects, timeout);
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
      throw new KubeFailure(404, "NotFound", problem.get(), null)
          .toException(operation, kind.key(), ref.namespace(), ref.name());
    }
    return apis.resolve(kind).orElseThrow();
  }

  private static @Nullable String scope(Kind kind, String namespace) {
    return kind.namespaced() ? namespace : null;
  }
}
