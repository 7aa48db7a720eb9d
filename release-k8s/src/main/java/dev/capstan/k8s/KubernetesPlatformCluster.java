package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.capstan.common.health.Condition;
import dev.capstan.update.UpdateException;
import dev.capstan.update.apply.RolloutWaiter;
import dev.capstan.update.cluster.ClusterInfo;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.ContainerStatus;
import dev.capstan.update.cluster.CrdState;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.EnvVar;
import dev.capstan.update.cluster.InventoryQuery;
import dev.capstan.update.cluster.InventorySnapshot;
import dev.capstan.update.cluster.PlatformCluster;
import dev.capstan.update.cluster.PodState;
import dev.capstan.update.cluster.RolloutStatus;
import dev.capstan.update.cluster.Workload;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionList;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * update-core's {@link PlatformCluster} on Kubernetes. Inventory is one LIST of Deployments and one
 * of pods per namespace, and one LIST of CustomResourceDefinitions; image and env changes are
 * strategic-merge patches under field manager {@value #FIELD_MANAGER} (only the containers, env
 * vars, labels and annotations the {@link DeploymentPatch} names); CRDs are written by server-side
 * apply and waited for (by watch) until {@code Established} and {@code NamesAccepted}. For the
 * plan's CRD preview, the inventory reports each existing CRD's {@code status.storedVersions} and
 * the spec a server-side dry-run apply of the release's document gives (so an unchanged CRD
 * compares equal after the API server's defaulting). {@link #rolloutWaiter()} waits for rollouts by
 * watching, with {@code kubectl rollout status} semantics, failing fast on pods that cannot start.
 *
 * <p>"Not found" is an empty result; every other failure is a {@link
 * dev.capstan.common.ClusterException} naming the call, the kind, the object and the HTTP status.
 * Thread-safe.
 */
// its core is an optional dependency (module-info): a host of this class requires it itself
@SuppressWarnings("exports")
public final class KubernetesPlatformCluster implements PlatformCluster {
  /** The field manager of every write. */
  public static final String FIELD_MANAGER = "capstan-update";

  /** How long {@link #applyCrd} waits for the CRD to be established before returning. */
  static final Duration CRD_WAIT = Duration.ofSeconds(30);

  private final KubeClients clients;
  private final ResourceApi<V1Deployment, V1DeploymentList> deployments;
  private final ResourceApi<V1Pod, V1PodList> pods;
  private final ResourceApi<V1CustomResourceDefinition, V1CustomResourceDefinitionList> crds;
  private final RolloutTracker tracker;

  /** A platform cluster on the given clients. */
  public KubernetesPlatformCluster(KubeClients clients) {
    this.clients = requireNonNull(clients, "clients");
    this.deployments = new ResourceApi<>(clients, ApiResource.DEPLOYMENT);
    this.pods = new ResourceApi<>(clients, ApiResource.POD);
    this.crds = new ResourceApi<>(clients, ApiResource.CRD);
    this.tracker = new RolloutTracker(clients);
  }

  /** {@inheritDoc} The cluster id is read once (a GET of namespace {@code kube-system}). */
  @Override
  public ClusterInfo info() {
    return new ClusterInfo(clients.context(), clients.server(), clients.clusterId());
  }

  /**
   * {@inheritDoc}
   *
   * <p>Per namespace of the query: one LIST of Deployments (by field when only one is asked for)
   * and, when any exists, one LIST of the pods their selectors match; one LIST of CRDs, and one
   * dry-run PATCH ({@code dryRun=All}, nothing persisted) per existing CRD the query has a document
   * for.
   */
  @Override
  public InventorySnapshot inventory(InventoryQuery query) {
    Map<String, Set<String>> byNamespace = new LinkedHashMap<>();
    for (Workload w : query.workloads()) {
      byNamespace
          .computeIfAbsent(w.namespace(), n -> new java.util.LinkedHashSet<>())
          .add(w.deployment());
    }
    List<DeploymentState> found = new ArrayList<>();
    List<PodState> foundPods = new ArrayList<>();
    for (Map.Entry<String, Set<String>> e : byNamespace.entrySet()) {
      String namespace = e.getKey();
      Set<String> names = e.getValue();
      String field = names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
      List<V1Deployment> live = new ArrayList<>();
      for (V1Deployment d : deployments.list(namespace, null, field)) {
        if (names.contains(d.getMetadata().getName())) {
          live.add(d);
          found.add(state(d));
        }
      }
      if (live.isEmpty()) {
        continue;
      }
      for (V1Pod pod : pods.list(namespace, Rollouts.podSelector(live), null)) {
        if (live.stream().anyMatch(d -> Rollouts.selects(Rollouts.matchLabels(d), pod))) {
          foundPods.add(pod(pod));
        }
      }
    }
    List<CrdState> foundCrds = new ArrayList<>();
    if (!query.crdNames().isEmpty()) {
      String field =
          query.crdNames().size() == 1 ? "metadata.name=" + query.crdNames().get(0) : null;
      for (JsonObject raw : crds.listingRaw(null, null, field).items()) {
        CrdState crd = crd(raw);
        if (query.crdNames().contains(crd.name())) {
          Map<String, @Nullable Object> document = query.crdDocuments().get(crd.name());
          foundCrds.add(document == null ? crd : crd.withDryRunSpec(dryRunSpec(crd, document)));
        }
      }
    }
    return new InventorySnapshot(found, foundPods, foundCrds);
  }

  /** {@inheritDoc} One GET. */
  @Override
  public Optional<DeploymentState> deployment(Workload workload) {
    return deployments
        .get(workload.namespace(), workload.deployment())
        .map(KubernetesPlatformCluster::state);
  }

  /** {@inheritDoc} One strategic-merge PATCH under {@value #FIELD_MANAGER}. */
  @Override
  public void patch(DeploymentPatch patch) {
    Workload w = patch.workload();
    deployments.patch(
        w.namespace(),
        w.deployment(),
        V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH,
        JSON.getGson().toJson(patch.strategicMergePatch()),
        FIELD_MANAGER);
  }

  /** {@inheritDoc} One GET. */
  @Override
  public Optional<RolloutStatus> rolloutStatus(Workload workload) {
    return deployments.get(workload.namespace(), workload.deployment()).map(Rollouts::status);
  }

  /**
   * The spec the CRD would have after a forced server-side apply of {@code document} under {@value
   * #FIELD_MANAGER}: one dry-run PATCH ({@code dryRun=All}), which persists nothing. Empty when the
   * API server refuses the change as invalid (HTTP 422, for example a stored version removed); the
   * planner then compares the document as written, and its safety gate names the problem.
   */
  private Map<String, @Nullable Object> dryRunSpec(
      CrdState live, Map<String, @Nullable Object> document) {
    try {
      JsonObject applied =
          crds.dryRunApply(null, live.name(), JSON.getGson().toJson(document), FIELD_MANAGER);
      return spec(applied);
    } catch (dev.capstan.common.ClusterException e) {
      if (e.status() == 422) {
        return Map.of();
      }
      throw e;
    }
  }

  /** {@inheritDoc} One GET. */
  @Override
  public Optional<CrdState> crd(String name) {
    return crds.getRaw(null, name).map(KubernetesPlatformCluster::crd);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A GET (to tell {@code created} from {@code configured}), a forced server-side apply under
   * {@value #FIELD_MANAGER}, then a watch on the CRD until it is {@code Established} and its names
   * are accepted, its names are refused, or 30 seconds pass; the caller checks the conditions.
   *
   * <p>When the document drops versions the live CRD lists in {@code status.storedVersions} (the
   * planner's CRD gate lets that through only with {@code allowUnsafeCrdChanges}), the API server
   * would refuse the apply, so it takes three writes: an apply of the document with the dropped
   * versions kept as neither served nor storage (the API server then records the new storage
   * version as stored), an update of the status without the dropped versions, then the apply of the
   * document itself. Objects still stored at a dropped version can no longer be read.
   */
  @Override
  public String applyCrd(String name, Map<String, @Nullable Object> document) {
    Optional<V1CustomResourceDefinition> live = crds.get(null, name);
    if (live.isPresent()) {
      forgetDroppedStoredVersions(live.get(), document);
    }
    crds.applyJson(null, name, JSON.getGson().toJson(document), FIELD_MANAGER);
    awaitEstablished(name, CRD_WAIT);
    return live.isPresent() ? "configured" : "created";
  }

  private void forgetDroppedStoredVersions(
      V1CustomResourceDefinition live, Map<String, @Nullable Object> document) {
    List<String> stored =
        live.getStatus() == null || live.getStatus().getStoredVersions() == null
            ? List.of()
            : live.getStatus().getStoredVersions();
    Object spec = document.get("spec");
    if (!(spec instanceof Map<?, ?> specMap)) {
      return;
    }
    @SuppressWarnings("unchecked")
    Map<String, @Nullable Object> typedSpec = (Map<String, @Nullable Object>) specMap;
    Set<String> declared = new java.util.HashSet<>();
    CrdState.versions(typedSpec).forEach(v -> declared.add(v.name()));
    List<String> dropped = stored.stream().filter(v -> !declared.contains(v)).toList();
    if (dropped.isEmpty()) {
      return;
    }
    String name = live.getMetadata().getName();
    JsonObject bridge = JSON.getGson().toJsonTree(document).getAsJsonObject();
    JsonArray versions = bridge.getAsJsonObject("spec").getAsJsonArray("versions");
    for (io.kubernetes.client.openapi.models.V1CustomResourceDefinitionVersion v :
        live.getSpec().getVersions()) {
      if (dropped.contains(v.getName())) {
        JsonObject kept = JSON.getGson().toJsonTree(v).getAsJsonObject();
        kept.addProperty("served", false);
        kept.addProperty("storage", false);
        versions.add(kept);
      }
    }
    crds.applyJson(null, name, bridge.toString(), FIELD_MANAGER);
    V1CustomResourceDefinition bridged =
        crds.get(null, name)
            .orElseThrow(
                () ->
                    new dev.capstan.common.ClusterException(
                        "update status",
                        ApiResource.CRD.kind(),
                        null,
                        name,
                        404,
                        "the CustomResourceDefinition disappeared during the update",
                        null));
    List<String> keep =
        bridged.getStatus().getStoredVersions().stream().filter(v -> !dropped.contains(v)).toList();
    bridged.getStatus().setStoredVersions(new ArrayList<>(keep));
    crds.updateStatus(bridged, V1CustomResourceDefinition::getStatus);
  }

  private void awaitEstablished(String name, Duration wait) {
    ListOptions options =
        new ListOptions()
            .fieldSelector("metadata.name=" + name)
            .timeoutSeconds((int) wait.toSeconds());
    try (Watchable<V1CustomResourceDefinition> watch = crds.watch(null, options)) {
      for (Watch.Response<V1CustomResourceDefinition> event : watch) {
        if (event.object == null || event.object.getStatus() == null) {
          continue;
        }
        Map<String, String> status = new LinkedHashMap<>();
        if (event.object.getStatus().getConditions() != null) {
          event
              .object
              .getStatus()
              .getConditions()
              .forEach(c -> status.put(c.getType(), c.getStatus()));
        }
        if ("False".equals(status.get("NamesAccepted"))
            || ("True".equals(status.get("Established"))
                && "True".equals(status.get("NamesAccepted")))) {
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        throw new UpdateException("interrupted while waiting for CRD " + name, e);
      }
      // the caller reads the CRD's conditions and decides
    }
  }

  /**
   * A {@link RolloutWaiter} that watches instead of polling: one LIST of the Deployment, then
   * (while it rolls out) a watch on it and one on its pods. It returns when the rollout is
   * complete, and throws {@link UpdateException} with the reason when it cannot complete ({@code
   * ProgressDeadlineExceeded}, {@code FailedCreate}, a new pod in {@code ImagePullBackOff}, {@code
   * ErrImagePull} or {@code CrashLoopBackOff}) or when the timeout passes (with the last status
   * seen, naming a new pod the scheduler holds back). A Deployment that does not exist yet is
   * waited for.
   */
  public RolloutWaiter rolloutWaiter() {
    return (workload, timeout) -> {
      RolloutTracker.Outcome outcome =
          tracker
              .await(workload.namespace(), Set.of(workload.deployment()), timeout, false, true)
              .get(workload.deployment());
      if (outcome instanceof RolloutTracker.Outcome.Failed f) {
        throw new UpdateException(f.reason());
      }
      if (outcome instanceof RolloutTracker.Outcome.Pending p) {
        throw new UpdateException("timed out; last status: " + p.message());
      }
    };
  }

  static DeploymentState state(V1Deployment d) {
    List<ContainerState> containers = new ArrayList<>();
    if (d.getSpec() != null && d.getSpec().getTemplate().getSpec() != null) {
      for (V1Container c : d.getSpec().getTemplate().getSpec().getContainers()) {
        List<EnvVar> env = new ArrayList<>();
        for (V1EnvVar e : c.getEnv() == null ? List.<V1EnvVar>of() : c.getEnv()) {
          env.add(EnvVar.of(e.getName(), e.getValue() == null ? "" : e.getValue()));
        }
        containers.add(
            new ContainerState(c.getName(), c.getImage() == null ? "" : c.getImage(), env));
      }
    }
    return new DeploymentState(
        Workload.of(d.getMetadata().getNamespace(), d.getMetadata().getName()),
        orEmpty(d.getMetadata().getLabels()),
        orEmpty(d.getMetadata().getAnnotations()),
        Rollouts.matchLabels(d),
        containers);
  }

  private static PodState pod(V1Pod pod) {
    List<ContainerStatus> statuses = new ArrayList<>();
    if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
      for (io.kubernetes.client.openapi.models.V1ContainerStatus s :
          pod.getStatus().getContainerStatuses()) {
        statuses.add(
            new ContainerStatus(
                s.getName(),
                Boolean.TRUE.equals(s.getReady()),
                s.getImageID() == null ? "" : s.getImageID()));
      }
    }
    return new PodState(
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        orEmpty(pod.getMetadata().getLabels()),
        statuses);
  }

  /** The {@code spec} of a raw object, as a plain tree. */
  private static Map<String, @Nullable Object> spec(JsonObject raw) {
    Map<String, @Nullable Object> spec = new LinkedHashMap<>();
    if (raw.get("spec") instanceof JsonObject s) {
      for (Map.Entry<String, JsonElement> e : s.entrySet()) {
        spec.put(e.getKey(), tree(e.getValue()));
      }
    }
    return spec;
  }

  static CrdState crd(JsonObject raw) {
    String name = raw.getAsJsonObject("metadata").get("name").getAsString();
    Map<String, @Nullable Object> spec = spec(raw);
    List<String> storedVersions = new ArrayList<>();
    if (raw.get("status") instanceof JsonObject status
        && status.get("storedVersions") instanceof JsonArray stored) {
      stored.forEach(v -> storedVersions.add(v.getAsString()));
    }
    List<Condition> conditions = new ArrayList<>();
    if (raw.get("status") instanceof JsonObject status
        && status.get("conditions") instanceof JsonArray array) {
      for (JsonElement c : array) {
        if (c instanceof JsonObject o) {
          conditions.add(
              new Condition(
                  text(o, "type"), text(o, "status"), text(o, "reason"), text(o, "message")));
        }
      }
    }
    return new CrdState(name, spec, conditions, storedVersions, Map.of());
  }

  /** JSON as a plain tree: maps, lists, strings, longs, doubles, booleans. */
  private static @Nullable Object tree(JsonElement e) {
    if (e instanceof JsonObject o) {
      Map<String, @Nullable Object> map = new LinkedHashMap<>();
      o.entrySet().forEach(x -> map.put(x.getKey(), tree(x.getValue())));
      return map;
    }
    if (e instanceof JsonArray a) {
      List<@Nullable Object> list = new ArrayList<>();
      a.forEach(x -> list.add(tree(x)));
      return list;
    }
    if (e instanceof JsonPrimitive p) {
      if (p.isBoolean()) {
        return p.getAsBoolean();
      }
      if (p.isNumber()) {
        java.math.BigDecimal n = p.getAsBigDecimal();
        try {
          return n.longValueExact();
        } catch (ArithmeticException notWhole) {
          return n.doubleValue();
        }
      }
      return p.getAsString();
    }
    return null;
  }

  private static String text(JsonObject o, String key) {
    JsonElement e = o.get(key);
    return e == null || e.isJsonNull() ? "" : e.getAsString();
  }

  private static Map<String, String> orEmpty(@Nullable Map<String, String> map) {
    return map == null ? Map.of() : map;
  }
}
