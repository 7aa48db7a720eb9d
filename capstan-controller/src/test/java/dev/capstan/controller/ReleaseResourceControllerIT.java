package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Scale;
import io.kubernetes.client.util.PatchUtils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The controller on a real control plane: Releases applied as a user applies them, the controller
 * running in this JVM (two workers, every namespace), its outcomes read back from the Releases'
 * status, the objects and the API server's requests. Timing facts (how soon) are bounded by
 * generous timeouts only; what is asserted exactly is what was written.
 */
@ControlPlaneTest
class ReleaseResourceControllerIT {
  private static final Duration SOON = Duration.ofSeconds(90);

  /** The label of the Releases a test's own controller reconciles, not the class's one. */
  private static final String SHARD = "capstan-it-shard";

  private static @Nullable ReleaseResourceController controller;
  private static final List<ReleaseEvent> engineEvents = new CopyOnWriteArrayList<>();
  private static final List<String> outcomes = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void installTheCrdWithCapstanAndStartTheController(ControlPlane plane) {
    KubeClients clients = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController engine =
        ReleaseController.builder(new KubernetesOrchestrator(clients), new KubernetesStore(clients))
            .holder("it-installer")
            .build();
    ReleaseFile crd =
        ReleaseFiles.manifestText(
            ReleaseResource.crdYaml(),
            "releases.capstan.dev.yaml",
            new Overrides("default", "capstan-crd"));
    engine.cast(crd.toSpec(), crd.payloads());
    controller =
        ReleaseResourceController.builder(KubeClients.fromKubeconfig(plane.kubeconfig()))
            .workers(2)
            .selector("!" + SHARD)
            .identity("it-controller")
            .listener((release, outcome) -> outcomes.add(release + ": " + outcome))
            .engine(b -> b.listener(engineEvents::add))
            .build();
    controller.start();
  }

  @AfterAll
  static void stopTheController() {
    ReleaseResourceController c = controller;
    if (c != null) {
      c.close();
    }
  }

  // --- helpers -------------------------------------------------------------------------------

  private static Map<String, Object> configMap(String name, String value) {
    return configMap(name, Map.of("value", value));
  }

  private static Map<String, Object> configMap(String name, Map<String, String> data) {
    return Map.of(
        "apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", name), "data", data);
  }

  private static Map<String, Object> deployment(String name) {
    Map<String, Object> labels = Map.of("app", name);
    return Map.of(
        "apiVersion",
        "apps/v1",
        "kind",
        "Deployment",
        "metadata",
        Map.of("name", name),
        "spec",
        Map.of(
            "replicas", 1,
            "selector", Map.of("matchLabels", labels),
            "template",
                Map.of(
                    "metadata", Map.of("labels", labels),
                    "spec",
                        Map.of(
                            "containers",
                            List.of(
                                Map.of(
                                    "name", "app", "image", "registry.example/" + name + ":1"))))));
  }

  private static Map<String, Object> release(String name, Map<String, Object> spec) {
    return release(name, Map.of(), spec);
  }

  private static Map<String, Object> release(
      String name, Map<String, String> labels, Map<String, Object> spec) {
    return Map.of(
        "apiVersion",
        ReleaseResource.API_VERSION,
        "kind",
        ReleaseResource.KIND,
        "metadata",
        Map.of("name", name, "labels", labels),
        "spec",
        spec);
  }

  private static Map<String, Object> spec(Object... entries) {
    Map<String, Object> spec = new LinkedHashMap<>();
    for (int i = 0; i < entries.length; i += 2) {
      spec.put((String) entries[i], entries[i + 1]);
    }
    return spec;
  }

  private static void apply(ControlPlane plane, String ns, Map<String, Object> release)
      throws ApiException {
    new CustomObjectsApi(plane.client())
        .createNamespacedCustomObject(
            ReleaseResource.GROUP, ReleaseResource.VERSION, ns, ReleaseResource.PLURAL, release)
        .execute();
  }

  private static void patchSpec(ControlPlane plane, String ns, String name, String json)
      throws ApiException {
    CustomObjectsApi api = new CustomObjectsApi(plane.client());
    PatchUtils.patch(
        Object.class,
        () ->
            api.patchNamespacedCustomObject(
                    ReleaseResource.GROUP,
                    ReleaseResource.VERSION,
                    ns,
                    ReleaseResource.PLURAL,
                    name,
                    new V1Patch(json))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        plane.client());
  }

  private static @Nullable ReleaseResource read(ControlPlane plane, String ns, String name) {
    return ReleaseResource.get(plane.client(), new ReleaseKey(ns, name)).orElse(null);
  }

  /**
   * Waits until the Release's Ready condition has {@code status} with {@code reason}, for its
   * generation.
   */
  private static ReleaseResource awaitReady(
      ControlPlane plane, String ns, String name, String status, String reason) {
    return Await.until(
        "Release " + ns + "/" + name + " Ready=" + status + " " + reason,
        SOON,
        () -> read(plane, ns, name),
        r -> {
          Map<?, ?> ready = r.condition("Ready");
          return ready != null
              && status.equals(ready.get("status"))
              && reason.equals(ready.get("reason"))
              && Long.valueOf(r.generation())
                  .equals(
                      ready.get("observedGeneration") instanceof Number n ? n.longValue() : null);
        });
  }

  private static String message(ReleaseResource r) {
    Map<?, ?> ready = r.condition("Ready");
    return ready == null ? "" : String.valueOf(ready.get("message"));
  }

  private static @Nullable V1ConfigMap configMapIn(ControlPlane plane, String ns, String name)
      throws ApiException {
    try {
      return new CoreV1Api(plane.client()).readNamespacedConfigMap(name, ns).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static V1ConfigMap existing(ControlPlane plane, String ns, String name)
      throws ApiException {
    return java.util.Objects.requireNonNull(configMapIn(plane, ns, name), name);
  }

  private static String value(@Nullable V1ConfigMap c) {
    return c == null || c.getData() == null ? "" : String.valueOf(c.getData().get("value"));
  }

  /** The requests of {@code counts} that write: everything but reads and watches. */
  private static long writes(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .filter(
            e ->
                !e.getKey().startsWith("GET ")
                    && !e.getKey().startsWith("LIST ")
                    && !e.getKey().startsWith("WATCH "))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  // --- tests ---------------------------------------------------------------------------------

  @Test
  void anAppliedReleaseIsCastAndReportsReadyForItsGenerationAsKubectlWaitSees(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    apply(
        plane,
        ns,
        release(
            "web",
            spec("manifests", List.of(configMap("web-settings", "blue"), deployment("web")))));

    ReleaseResource web = awaitReady(plane, ns, "web", "True", "Cast");

    assertThat(message(web)).isEqualTo("revision 1: 2 created");
    assertThat(web.finalizers()).containsExactly(ReleaseResource.FINALIZER);
    assertThat(web.status())
        .containsEntry("observedGeneration", 1L)
        .containsEntry("releaseName", "web")
        .containsEntry("lastAppliedRevision", 1L);
    assertThat(web.condition("Stalled")).isNull();
    assertThat(web.condition("Reconciling")).isNull();
    assertThat(value(configMapIn(plane, ns, "web-settings"))).isEqualTo("blue");
    Path kubectl = kubectl(plane);
    Process wait =
        new ProcessBuilder(
                kubectl.toString(),
                "--kubeconfig=" + plane.kubeconfig(),
                "wait",
                "--for=condition=Ready",
                "release.capstan.dev/web",
                "-n",
                ns,
                "--timeout=60s")
            .redirectErrorStream(true)
            .start();
    String out = new String(wait.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(wait.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(wait.exitValue()).as(out).isZero();
    assertThat(out.strip()).isEqualTo("release.capstan.dev/web condition met");
  }

  @Test
  void driftIsRepairedWithinAnIntervalAndAnIdleIntervalWritesNothing(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    KubeClients clients = KubeClients.fromKubeconfig(plane.kubeconfig());
    List<String> lines = new CopyOnWriteArrayList<>();
    try (ReleaseResourceController idle =
        ReleaseResourceController.builder(clients)
            .workers(1)
            .selector(SHARD + "=" + ns)
            .identity("it-idle")
            .listener((r, o) -> lines.add(o))
            .build()) {
      idle.start();
      apply(
          plane,
          ns,
          release(
              "drift",
              Map.of(SHARD, ns),
              spec("manifests", List.of(configMap("drift-settings", "blue")), "interval", "2s")));
      awaitReady(plane, ns, "drift", "True", "Cast");
      // the class's controller does not see this Release (its selector leaves the shard out)
      // its outcome line comes after the cast's last write (the Event): nothing of it is counted
      Await.until(
          "the idle controller's cast",
          SOON,
          () -> lines.contains("revision 1: 1 created") ? lines : null);

      clients.requests().reset();
      int before = idle.reconciles();
      Await.until(
          "three idle reconciles",
          SOON,
          () -> idle.reconciles() >= before + 3 ? idle.reconciles() : null);
      Map<String, Long> idleRequests = new LinkedHashMap<>(clients.requests().counts());
      idleRequests.putAll(clients.requests().backgroundCounts());

      // each idle reconcile plans: it reads (the record, the object), and writes nothing
      assertThat(idleRequests).as("the requests of three idle reconciles").isNotEmpty();
      assertThat(writes(idleRequests)).as(idleRequests.toString()).isZero();

      new CoreV1Api(plane.client())
          .replaceNamespacedConfigMap(
              "drift-settings",
              ns,
              new V1ConfigMap()
                  .metadata(
                      new V1ObjectMeta()
                          .name("drift-settings")
                          .namespace(ns)
                          .labels(existing(plane, ns, "drift-settings").getMetadata().getLabels())
                          .annotations(
                              existing(plane, ns, "drift-settings").getMetadata().getAnnotations()))
                  .data(Map.of("value", "edited")))
          .execute();
      Await.until(
          "the drift repaired",
          SOON,
          () -> configMapIn(plane, ns, "drift-settings"),
          c -> value(c).equals("blue"));
      ReleaseResource repaired = awaitReady(plane, ns, "drift", "True", "Cast");
      assertThat(message(repaired)).isEqualTo("revision 2: 1 repaired");
    }
  }

  /** {@code kubectl scale deploy NAME --replicas=N} as {@code manager}: the scale subresource. */
  private static void scale(ControlPlane plane, String manager, String ns, String name, int n)
      throws ApiException {
    PatchUtils.patch(
        V1Scale.class,
        () ->
            new AppsV1Api(plane.client())
                .patchNamespacedDeploymentScale(
                    name, ns, new V1Patch("{\"spec\":{\"replicas\":" + n + "}}"))
                .fieldManager(manager)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        plane.client());
  }

  private static int replicas(ControlPlane plane, String ns, String name) throws ApiException {
    Integer n =
        new AppsV1Api(plane.client())
            .readNamespacedDeployment(name, ns)
            .execute()
            .getSpec()
            .getReplicas();
    return n == null ? -1 : n;
  }

  @Test
  void kubectlScaleAndAJsonPatchRemoveAreRepairedWithinAnIntervalAndAReplicasRuleIsLeftAlone(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Map<String, Object> settings =
        configMap("scaled-settings", Map.of("value", "blue", "color", "red"));
    apply(
        plane,
        ns,
        release(
            "scaled",
            spec("manifests", List.of(settings, deployment("scaled")), "interval", "2s")));
    // the Release resource's ignore rule: an HPA owns the replicas
    apply(
        plane,
        ns,
        release(
            "autoscaled",
            spec(
                "manifests",
                List.of(deployment("autoscaled")),
                "interval",
                "2s",
                "options",
                Map.of(
                    "driftIgnore",
                    List.of(
                        Map.of("kind", "apps/Deployment", "paths", List.of("/spec/replicas")))))));
    awaitReady(plane, ns, "scaled", "True", "Cast");
    awaitReady(plane, ns, "autoscaled", "True", "Cast");

    scale(plane, "kubectl", ns, "scaled", 5);
    PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            new CoreV1Api(plane.client())
                .patchNamespacedConfigMap(
                    "scaled-settings",
                    ns,
                    new V1Patch("[{\"op\":\"remove\",\"path\":\"/data/color\"}]"))
                .fieldManager("kubectl-patch")
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_PATCH,
        plane.client());
    scale(plane, "hpa-like", ns, "autoscaled", 3);
    ReleaseResourceController running = java.util.Objects.requireNonNull(controller);
    int before = running.reconciles();

    Await.until(
        "kubectl scale and the removed key repaired",
        SOON,
        () -> replicas(plane, ns, "scaled") == 1 ? configMapIn(plane, ns, "scaled-settings") : null,
        c -> c.getData() != null && "red".equals(c.getData().get("color")));
    ReleaseResource scaled = awaitReady(plane, ns, "scaled", "True", "Cast");
    // one interval repairs both, unless the edits straddled a reconcile: then two do, one each
    assertThat(message(scaled)).matches("revision 2: 2 repaired|revision 3: 1 repaired");

    // intervals go by (each of the two Releases reconciled every 2 s): the HPA's value stays
    Await.until(
        "six more reconciles",
        SOON,
        () -> running.reconciles() >= before + 6 ? running.reconciles() : null);
    assertThat(replicas(plane, ns, "autoscaled")).isEqualTo(3);
    ReleaseResource autoscaled = awaitReady(plane, ns, "autoscaled", "True", "Cast");
    assertThat(message(autoscaled)).isEqualTo("revision 1: 1 created");
    assertThat(autoscaled.status()).containsEntry("lastAppliedRevision", 1L);
  }

  @Test
  void aChangedConfigMapSourceIsRolledOutWithoutWaitingForTheInterval(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    CoreV1Api core = new CoreV1Api(plane.client());
    core.createNamespacedConfigMap(
            ns,
            new V1ConfigMap()
                .metadata(new V1ObjectMeta().name("app-manifests"))
                .data(
                    Map.of(
                        "all.yaml",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {value: v1}\n")))
        .execute();
    apply(
        plane,
        ns,
        release(
            "app",
            spec(
                "manifestsFrom",
                List.of(Map.of("configMap", Map.of("name", "app-manifests"))),
                "interval",
                "1h")));
    awaitReady(plane, ns, "app", "True", "Cast");
    assertThat(value(configMapIn(plane, ns, "app"))).isEqualTo("v1");

    PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            core.patchNamespacedConfigMap(
                    "app-manifests",
                    ns,
                    new V1Patch(
                        "{\"data\":{\"all.yaml\":\"apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: app}\\ndata: {value: v2}\\n\"}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        plane.client());

    Await.until(
        "the new manifests rolled out",
        SOON,
        () -> configMapIn(plane, ns, "app"),
        c -> value(c).equals("v2"));
    ReleaseResource app = awaitReady(plane, ns, "app", "True", "Cast");
    assertThat(message(app)).isEqualTo("revision 2: 1 updated");
  }

  @Test
  void anObjectOfAnotherReleaseStallsTheReleaseNamingItsOwnerAndItRecoversOnceItIsGone(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    KubeClients clients = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController other =
        ReleaseController.builder(new KubernetesOrchestrator(clients), new KubernetesStore(clients))
            .holder("it-other")
            .build();
    ReleaseFile theirs =
        ReleaseFiles.manifestText(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {value: theirs}\n",
            "theirs.yaml",
            new Overrides(ns, "other"));
    other.cast(theirs.toSpec(), theirs.payloads());
    String theirVersion = existing(plane, ns, "shared").getMetadata().getResourceVersion();

    apply(
        plane,
        ns,
        release("mine", spec("manifests", List.of(configMap("shared", "mine")), "interval", "2s")));

    ReleaseResource stalled = awaitReady(plane, ns, "mine", "False", "Conflict");
    assertThat(message(stalled))
        .startsWith(
            "release "
                + ns
                + "/mine has unresolved conflicts; nothing was written: ConfigMap/"
                + ns
                + "/shared;")
        .contains(ns + "/other");
    assertThat(stalled.condition("Stalled")).isNotNull();
    assertThat(existing(plane, ns, "shared").getMetadata().getResourceVersion())
        .isEqualTo(theirVersion);

    other.uninstall(ns, "other", UninstallOptions.defaults());

    ReleaseResource recovered = awaitReady(plane, ns, "mine", "True", "Cast");
    assertThat(message(recovered)).isEqualTo("revision 1: 1 created");
    assertThat(recovered.condition("Stalled")).isNull();
    assertThat(value(configMapIn(plane, ns, "shared"))).isEqualTo("mine");
  }

  @Test
  void deletingAReleaseUninstallsItInReverseOrderThroughTheFinalizerAndKeepsARetainedVolume(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Map<String, Object> claim =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "PersistentVolumeClaim",
            "metadata",
            Map.of("name", "data", "annotations", Map.of("capstan.dev/reclaim-policy", "Retain")),
            "spec",
            Map.of(
                "accessModes",
                List.of("ReadWriteOnce"),
                "resources",
                Map.of("requests", Map.of("storage", "1Gi"))));
    apply(
        plane,
        ns,
        release(
            "shop",
            spec(
                "manifests", List.of(claim, configMap("shop-settings", "x"), deployment("shop")))));
    awaitReady(plane, ns, "shop", "True", "Cast");
    int from = engineEvents.size();

    new CustomObjectsApi(plane.client())
        .deleteNamespacedCustomObject(
            ReleaseResource.GROUP, ReleaseResource.VERSION, ns, ReleaseResource.PLURAL, "shop")
        .execute();

    Await.until(
        "the Release gone", SOON, () -> read(plane, ns, "shop") == null ? Boolean.TRUE : null);
    List<String> uninstalled = new ArrayList<>();
    for (ReleaseEvent e : engineEvents.subList(from, engineEvents.size())) {
      if (e instanceof ReleaseEvent.Done done && done.release().equals(ns + "/shop")) {
        uninstalled.add(done.action().id() + " " + done.ref().key());
      }
    }
    assertThat(uninstalled)
        .containsExactly(
            Action.PRUNE.id() + " apps/Deployment/" + ns + "/shop",
            Action.PRUNE.id() + " ConfigMap/" + ns + "/shop-settings",
            Action.RETAIN.id() + " PersistentVolumeClaim/" + ns + "/data");
    assertThat(configMapIn(plane, ns, "shop-settings")).isNull();
    assertThat(
            new CoreV1Api(plane.client())
                .readNamespacedPersistentVolumeClaim("data", ns)
                .execute()
                .getMetadata()
                .getName())
        .isEqualTo("data");
  }

  @Test
  void aReleaseWaitsForWhatItDependsOnAndACycleIsStalledNamingIt(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    apply(
        plane,
        ns,
        release(
            "front",
            spec(
                "manifests",
                List.of(configMap("front", "1")),
                "dependsOn",
                List.of(Map.of("name", "back")))));
    ReleaseResource waiting = awaitReady(plane, ns, "front", "Unknown", "DependencyNotReady");
    assertThat(message(waiting))
        .isEqualTo("waiting for Release " + ns + "/back, which does not exist");
    assertThat(configMapIn(plane, ns, "front")).isNull();

    apply(plane, ns, release("back", spec("manifests", List.of(configMap("back", "1")))));

    awaitReady(plane, ns, "back", "True", "Cast");
    awaitReady(plane, ns, "front", "True", "Cast");

    patchSpec(plane, ns, "back", "{\"spec\":{\"dependsOn\":[{\"name\":\"front\"}]}}");
    ReleaseResource cycle = awaitReady(plane, ns, "back", "False", "DependencyCycle");
    assertThat(message(cycle))
        .isEqualTo("dependsOn cycle: " + ns + "/back -> " + ns + "/front -> " + ns + "/back");
  }

  @Test
  void theInstallManifestsInDeployCastWithCapstan(ControlPlane plane) throws Exception {
    KubeClients clients = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController engine =
        ReleaseController.builder(new KubernetesOrchestrator(clients), new KubernetesStore(clients))
            .holder("it-installer")
            .build();
    ReleaseFile deploy =
        ReleaseFiles.manifests(
            Path.of("deploy"), "deploy", new Overrides("capstan-system", "capstan-controller"));

    var cast =
        engine.cast(
            deploy.toSpec().withOptions(deploy.options().withCreateNamespace(true)),
            deploy.payloads());

    assertThat(cast.release().status()).isEqualTo(dev.capstan.release.model.ReleaseStatus.DEPLOYED);
    assertThat(cast.release().owns())
        .extracting(o -> o.ref().key())
        .containsExactlyInAnyOrder(
            "ServiceAccount/capstan-system/capstan-controller",
            "rbac.authorization.k8s.io/ClusterRole//capstan-controller",
            "rbac.authorization.k8s.io/ClusterRole//capstan-controller-releases",
            "rbac.authorization.k8s.io/ClusterRoleBinding//capstan-controller",
            "rbac.authorization.k8s.io/ClusterRoleBinding//capstan-controller-releases",
            "apps/Deployment/capstan-system/capstan-controller");
  }

  @Test
  void aSpecTheApiServerRefusesNeverReachesTheController(ControlPlane plane, TestNamespace tns) {
    String ns = tns.name();
    ApiException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            ApiException.class,
            () ->
                apply(
                    plane,
                    ns,
                    release(
                        "bad",
                        spec("manifests", List.of(configMap("x", "1")), "interval", "5 minutes"))));
    assertThat(refused.getCode()).isEqualTo(422);
    assertThat(refused.getResponseBody()).contains("spec.interval");
  }

  /** kubectl of the control plane's version, from the control-plane build. */
  private static Path kubectl(ControlPlane plane) throws IOException, InterruptedException {
    Path scripts =
        Path.of(System.getProperty("capstan.controlPlane.scripts", "../testing/control-plane"));
    Process p =
        new ProcessBuilder(
                scripts.resolve("build.sh").toString(),
                "--print-bin",
                "--k8s-version",
                plane.serverVersion())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String bin = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor()).isZero();
    return Path.of(bin, "kubectl");
  }
}
