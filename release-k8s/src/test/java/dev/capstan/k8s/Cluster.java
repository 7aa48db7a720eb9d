package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the adapter ITs share: fresh clients (so each test counts its own requests), a controller
 * over the adapters, and reads and writes made behind Capstan's back through the plane's client.
 */
final class Cluster {
  final ControlPlane plane;
  final KubeClients kube;
  final KubernetesOrchestrator orchestrator;
  final KubernetesStore store;
  final CoreV1Api core;
  final AppsV1Api apps;

  Cluster(ControlPlane plane) {
    this.plane = requireNonNull(plane, "plane");
    this.kube = KubeClients.fromKubeconfig(plane.kubeconfig());
    this.orchestrator = new KubernetesOrchestrator(kube);
    this.store = new KubernetesStore(kube);
    this.core = new CoreV1Api(plane.client());
    this.apps = new AppsV1Api(plane.client());
  }

  ReleaseControllerBuilder controller() {
    return ReleaseController.builder(orchestrator, store).holder("it-caster");
  }

  /** Something a test does at a set point of a cast; may throw. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /**
   * A controller that runs {@code step} once, when its cast's plan is final under its lease (its
   * intent kept with the lease or recorded pending, nothing written yet): the point where another
   * writer or caster steps in. That is when the cast reports its plan after taking the lease, or,
   * when it planned first, as its first object write starts.
   */
  ReleaseControllerBuilder controllerPausingBeforeTheFirstWrite(Step step) {
    java.util.concurrent.atomic.AtomicBoolean leased =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    return controller()
        .listener(
            e -> {
              if (e instanceof dev.capstan.release.event.ReleaseEvent.LeaseAcquired) {
                leased.set(true);
              }
              boolean planned =
                  e instanceof dev.capstan.release.event.ReleaseEvent.Planned && leased.get();
              boolean writing =
                  e instanceof dev.capstan.release.event.ReleaseEvent.Started started
                      && started.action() != dev.capstan.release.plan.Action.REFERENCE;
              if ((planned || writing) && done.compareAndSet(false, true)) {
                try {
                  step.run();
                } catch (Exception x) {
                  throw new IllegalStateException(x);
                }
              }
            });
  }

  ReleaseController controller(String holder) {
    return ReleaseController.builder(orchestrator, store).holder(holder).build();
  }

  RequestCounter requests() {
    return kube.requests();
  }

  /** The counts without the reads: CREATE, UPDATE, PATCH, DELETE and DELETECOLLECTION. */
  SortedMap<String, Long> writes() {
    SortedMap<String, Long> out = new TreeMap<>(requests().counts());
    out.keySet()
        .removeIf(k -> k.startsWith("GET ") || k.startsWith("LIST ") || k.startsWith("WATCH "));
    return out;
  }

  /**
   * The requests in order, without the reads and the server-side dry runs (which persist nothing).
   */
  List<String> writeLog() {
    return requests().log().stream()
        .filter(
            l ->
                !(l.startsWith("GET ")
                    || l.startsWith("LIST ")
                    || l.startsWith("WATCH ")
                    || l.startsWith("DRYRUN-")))
        .toList();
  }

  ApiClient client() {
    return plane.client();
  }

  /** The image of a Deployment's first container. */
  String image(String namespace, String deployment) throws ApiException {
    return apps.readNamespacedDeployment(deployment, namespace)
        .execute()
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getImage();
  }

  /** The release record Secrets (heads and chunks) in a namespace. */
  List<V1Secret> recordSecrets(String namespace) throws ApiException {
    return core.listNamespacedSecret(namespace).labelSelector("owner=capstan").execute().getItems();
  }

  /** A server-side apply of a ConfigMap's data under another field manager. */
  void applyConfigMapAs(
      String manager, String namespace, String name, Map<String, String> data, boolean force)
      throws ApiException {
    StringBuilder yaml =
        new StringBuilder("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ")
            .append(name)
            .append("\n  namespace: ")
            .append(namespace)
            .append("\ndata:\n");
    data.forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
    PatchUtils.patch(
        io.kubernetes.client.openapi.models.V1ConfigMap.class,
        () ->
            core.patchNamespacedConfigMap(name, namespace, new V1Patch(yaml.toString()))
                .fieldManager(manager)
                .force(force)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        client());
  }

  /** A JSON merge patch of a Deployment, made by hand (field manager kubectl-patch). */
  V1Deployment mergePatchDeployment(String namespace, String name, String json)
      throws ApiException {
    return PatchUtils.patch(
        V1Deployment.class,
        () ->
            apps.patchNamespacedDeployment(name, namespace, new V1Patch(json))
                .fieldManager("kubectl-patch")
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        client());
  }

  /** The managed-fields entries of an object (typed models drop them; read them raw). */
  List<V1ManagedFieldsEntry> managedFields(
      String group, String version, String plural, String namespace, String name)
      throws ApiException {
    DynamicKubernetesObject object =
        new DynamicKubernetesApi(group, version, plural, client())
            .get(namespace, name)
            .throwsApiException()
            .getObject();
    List<V1ManagedFieldsEntry> entries = object.getMetadata().getManagedFields();
    return entries == null ? List.of() : entries;
  }

  /** The fields a manager owns on an object, as the fieldsV1 text. */
  String fieldsOwnedBy(
      String manager, String group, String version, String plural, String namespace, String name)
      throws ApiException {
    return managedFields(group, version, plural, namespace, name).stream()
        .filter(e -> manager.equals(e.getManager()))
        .map(e -> String.valueOf(e.getFieldsV1()))
        .reduce("", String::concat);
  }

  static final Duration ROLLOUT = Duration.ofSeconds(60);

  /**
   * Waits until {@code namespace} has {@code count} Deployments, each current by the rules a cast
   * uses (its controller has caught up: no status write of it is still to come).
   */
  static void awaitDeploymentsCurrent(ControlPlane plane, String namespace, int count) {
    DynamicKubernetesApi deployments =
        new DynamicKubernetesApi("apps", "v1", "deployments", plane.client());
    java.lang.reflect.Type map =
        new com.google.gson.reflect.TypeToken<Map<String, Object>>() {}.getType();
    dev.capstan.k8s.testing.Await.until(
        count + " Deployment(s) of " + namespace + " current",
        ROLLOUT,
        () -> {
          List<DynamicKubernetesObject> items =
              deployments.list(namespace).throwsApiException().getObject().getItems();
          for (DynamicKubernetesObject d : items) {
            Map<String, Object> object = new com.google.gson.Gson().fromJson(d.getRaw(), map);
            // the items of a LIST carry no apiVersion and kind
            object.put("apiVersion", "apps/v1");
            object.put("kind", "Deployment");
            if (!dev.capstan.common.health.HealthRules.of(object, List.of()).isCurrent()) {
              return null;
            }
          }
          return items.size() == count ? true : null;
        });
  }
}
