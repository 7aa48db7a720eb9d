package dev.capstan.controller;

import static dev.capstan.controller.ItReleases.SOON;
import static dev.capstan.controller.ItReleases.apply;
import static dev.capstan.controller.ItReleases.awaitReady;
import static dev.capstan.controller.ItReleases.configMap;
import static dev.capstan.controller.ItReleases.configMapIn;
import static dev.capstan.controller.ItReleases.deployment;
import static dev.capstan.controller.ItReleases.existing;
import static dev.capstan.controller.ItReleases.kubectl;
import static dev.capstan.controller.ItReleases.message;
import static dev.capstan.controller.ItReleases.read;
import static dev.capstan.controller.ItReleases.release;
import static dev.capstan.controller.ItReleases.spec;
import static dev.capstan.controller.ItReleases.value;
import static dev.capstan.controller.ItReleases.writes;
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
import dev.capstan.release.model.ReleaseStatus;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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
  /** The label of the Releases a test's own controller reconciles, not the class's one. */
  private static final String SHARD = "capstan-it-shard";

  private static @Nullable ReleaseResourceController controller;
  private static final List<ReleaseEvent> engineEvents = new CopyOnWriteArrayList<>();
  private static final List<String> outcomes = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void installTheCrdWithCapstanAndStartTheController(ControlPlane plane) {
    ItReleases.installCrd(plane);
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
    String out =
        kubectl(
            plane,
            "wait",
            "--for=condition=Ready",
            "release.capstan.dev/web",
            "-n",
            ns,
            "--timeout=60s");
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
  void aChangedReleaseNameUninstallsTheFormerReleaseThenCastsTheNewOne(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    List<Object> manifests = List.of(configMap("settings", "x"));
    apply(plane, ns, release("web", spec("releaseName", "old", "manifests", manifests)));
    awaitReady(plane, ns, "web", "True", "Cast");
    int from = engineEvents.size();

    ItReleases.patch(plane, ns, "web", "{\"spec\":{\"releaseName\":\"new\"}}");

    ReleaseResource web = awaitReady(plane, ns, "web", "True", "Cast");
    assertThat(message(web)).isEqualTo("revision 1: 1 created");
    assertThat(web.status()).containsEntry("releaseName", "new");
    List<String> done = new ArrayList<>();
    for (ReleaseEvent e : engineEvents.subList(from, engineEvents.size())) {
      if (e instanceof ReleaseEvent.Done d && d.release().startsWith(ns + "/")) {
        done.add(d.release() + " " + d.action().id() + " " + d.ref().key());
      }
    }
    assertThat(done)
        .containsExactly(
            ns + "/old " + Action.PRUNE.id() + " ConfigMap/" + ns + "/settings",
            ns + "/new " + Action.CREATE.id() + " ConfigMap/" + ns + "/settings");
    KubeClients clients = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController records =
        ReleaseController.builder(new KubernetesOrchestrator(clients), new KubernetesStore(clients))
            .build();
    assertThat(records.get(ns, "old").orElseThrow().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(records.get(ns, "new").orElseThrow().source())
        .isEqualTo(ReleaseResource.source(new ReleaseKey(ns, "web")));
    assertThat(value(configMapIn(plane, ns, "settings"))).isEqualTo("x");
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

    ItReleases.patch(plane, ns, "back", "{\"spec\":{\"dependsOn\":[{\"name\":\"front\"}]}}");
    ReleaseResource cycle = awaitReady(plane, ns, "back", "False", "DependencyCycle");
    assertThat(message(cycle))
        .isEqualTo("dependsOn cycle: " + ns + "/back -> " + ns + "/front -> " + ns + "/back");
  }

  @Test
  void aSuspendedReleaseShowsInKubectlGetAndTheReconcileAnnotationIsHandledAtOnce(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    apply(
        plane,
        ns,
        release("web", spec("manifests", List.of(configMap("web", "1")), "interval", "1h")));
    awaitReady(plane, ns, "web", "True", "Cast");

    // a reconcile now, without waiting for the interval (1h), for Capstan's annotation and Flux's
    for (String annotation :
        List.of(ReleaseResource.RECONCILE_REQUEST, ReleaseResource.FLUX_RECONCILE_REQUEST)) {
      String at = java.time.Instant.now().toString();
      long asked = System.nanoTime();
      ItReleases.patch(
          plane,
          ns,
          "web",
          "{\"metadata\":{\"annotations\":{\"" + annotation + "\":\"" + at + "\"}}}");
      ReleaseResource handled =
          Await.until(
              "the request " + at + " handled",
              SOON,
              () -> read(plane, ns, "web"),
              r -> at.equals(r.status().get("lastHandledReconcileAt")));
      Duration took = Duration.ofNanos(System.nanoTime() - asked);
      System.out.println(
          "reconcile request " + annotation + " handled in " + took.toMillis() + " ms");
      assertThat(took).isLessThan(Duration.ofSeconds(2));
      assertThat(handled.condition("Ready")).extracting(c -> c.get("reason")).isEqualTo("UpToDate");
    }

    ItReleases.patch(plane, ns, "web", "{\"spec\":{\"suspend\":true}}");
    Await.until(
        "web suspended", SOON, () -> read(plane, ns, "web"), r -> r.condition("Suspended") != null);
    String table = kubectl(plane, "get", "releases", "-n", ns);
    assertThat(table.lines().toList())
        .hasSize(2)
        .first()
        .asString()
        .matches("NAME +READY +REVISION +SUSPENDED +STATUS +AGE");
    assertThat(table.lines().toList().get(1))
        .matches("web +True +1 +True +revision 1 is deployed +\\S+");

    ItReleases.patch(plane, ns, "web", "{\"spec\":{\"suspend\":false}}");
    ReleaseResource resumed = awaitReady(plane, ns, "web", "True", "UpToDate");
    assertThat(resumed.condition("Suspended")).isNull();
    assertThat(kubectl(plane, "get", "releases", "-n", ns).lines().toList().get(1))
        .matches("web +True +1 +revision 1 is deployed +\\S+");
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
            "rbac.authorization.k8s.io/ClusterRoleBinding//capstan-controller",
            "rbac.authorization.k8s.io/Role/capstan-system/capstan-controller-leader-election",
            "rbac.authorization.k8s.io/RoleBinding/capstan-system/capstan-controller-leader-election",
            "rbac.authorization.k8s.io/ClusterRole//capstan-tenant",
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
}
