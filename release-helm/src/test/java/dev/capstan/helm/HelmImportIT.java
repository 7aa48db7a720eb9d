package dev.capstan.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.helm.chart.HelmChartRenderer;
import dev.capstan.k8s.KubeCapabilities;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneExtension;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.file.ChartRelease;
import dev.capstan.release.file.ChartReleases;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Real Helm 3 and Helm 4 releases, installed and upgraded twice on the real control plane, taken
 * over by {@link HelmImport}: nothing is recreated, the history comes along, Helm's field manager
 * no longer co-owns anything, and later casts and the uninstall are Capstan's.
 */
@ControlPlaneTest
class HelmImportIT {
  private static final Path CHART = Path.of("src/test/resources/charts/shop").toAbsolutePath();
  private static final Duration PATIENT = Duration.ofMinutes(3);

  /** The chart's objects (the hook ConfigMap is not among them). */
  private static List<String> objects(String ns) {
    return List.of(
        "ConfigMap/" + ns + "/shop-config",
        "Secret/" + ns + "/shop-creds",
        "apps/Deployment/" + ns + "/web",
        "apps/StatefulSet/" + ns + "/db",
        "Service/" + ns + "/web");
  }

  @Test
  void aHelm3ReleaseIsTakenOverInPlaceAndItsRecordsAreKept(ControlPlane plane, TestNamespace tns)
      throws Exception {
    takeOver(3, plane, tns.name(), false, "helm Update");
  }

  @Test
  void aHelm4ReleaseIsTakenOverInPlaceAndItsRecordsAreRemoved(ControlPlane plane, TestNamespace tns)
      throws Exception {
    takeOver(4, plane, tns.name(), true, "helm Apply");
  }

  @Test
  void aCorruptHelmRecordIsRefusedBeforeAnythingIsWritten(ControlPlane plane, TestNamespace tns)
      throws Exception {
    String ns = tns.name();
    byte[] truncatedGzip = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff, 1, 2, 3};
    new CoreV1Api(plane.client())
        .createNamespacedSecret(
            ns,
            new io.kubernetes.client.openapi.models.V1Secret()
                .metadata(
                    new io.kubernetes.client.openapi.models.V1ObjectMeta()
                        .name("sh.helm.release.v1.shop.v1")
                        .labels(Map.of("owner", "helm", "name", "shop", "version", "1")))
                .type("helm.sh/release.v1")
                .data(Map.of("release", java.util.Base64.getEncoder().encode(truncatedGzip))))
        .execute();
    KubeClients kube = KubeClients.fromKubeconfig(plane.kubeconfig());
    KubernetesOrchestrator orchestrator = new KubernetesOrchestrator(kube);
    KubernetesStore store = new KubernetesStore(kube);
    HelmImport importer =
        HelmImport.of(
            kube, orchestrator, store, ReleaseController.builder(orchestrator, store).build());

    HelmRecordException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            HelmRecordException.class, () -> importer.plan(ns, "shop"));

    assertThat(e.getMessage())
        .isEqualTo(
            "Helm release record Secret "
                + ns
                + "/sh.helm.release.v1.shop.v1: the release data is not valid gzip (truncated or"
                + " corrupt)");
    assertThat(kube.requests().counts())
        .isEqualTo(Map.of("LIST secrets", 1L, "LIST configmaps", 1L));
    assertThat(store.latestRecord(ns, "shop")).isEmpty();
  }

  private static void takeOver(
      int major, ControlPlane plane, String ns, boolean removeRecords, String helmEntry)
      throws Exception {
    Helm helm = Helm.of(major, plane.kubeconfig());
    CoreV1Api core = new CoreV1Api(plane.client());
    AppsV1Api apps = new AppsV1Api(plane.client());
    volumeFor(plane, ns, "data-db-0");
    helm.run("install", "shop", CHART.toString(), "-n", ns);
    helm.run("upgrade", "shop", CHART.toString(), "-n", ns, "--set", "mode=slow");
    helm.run(
        "upgrade",
        "shop",
        CHART.toString(),
        "-n",
        ns,
        "--set",
        "mode=slow",
        "--set",
        "image=registry.example/shop:1.1");
    settled(core, ns);
    Map<String, String> podsBefore = pods(core, ns);
    Map<String, String> replicaSetsBefore = replicaSets(apps, ns);
    String claimBefore = uid(plane, "", "v1", "persistentvolumeclaims", ns, "data-db-0");
    assertThat(podsBefore).hasSize(2);
    assertThat(replicaSetsBefore).hasSize(2); // the image change of the second upgrade

    KubeClients kube = KubeClients.fromKubeconfig(plane.kubeconfig());
    KubernetesOrchestrator orchestrator = new KubernetesOrchestrator(kube);
    KubernetesStore store = new KubernetesStore(kube);
    ReleaseController controller =
        ReleaseController.builder(orchestrator, store).holder("it-importer").build();
    HelmImport importer = HelmImport.of(kube, orchestrator, store, controller);

    HelmImportPlan plan = importer.plan(ns, "shop");

    assertThat(plan.render())
        .isEqualTo(
            ("Helm release NS/shop: 3 revisions, revision 3 deployed (chart shop-0.1.0, app 1.0,"
                    + " Secret driver)\n"
                    + "history: Helm revisions 1, 2, 3 become Capstan revisions (imported)\n"
                    + "cast: Capstan revision 4, stamps only\n"
                    + "  = reference Namespace//NS\n"
                    + "  ↪ adopt     ConfigMap/NS/shop-config  (from Helm release shop revision 3)\n"
                    + "  ↪ adopt     Secret/NS/shop-creds  (from Helm release shop revision 3)\n"
                    + "  ↪ adopt     apps/Deployment/NS/web  (from Helm release shop revision 3)\n"
                    + "  ↪ adopt     apps/StatefulSet/NS/db  (from Helm release shop revision 3)\n"
                    + "  ↪ adopt     Service/NS/web  (from Helm release shop revision 3)\n"
                    + "hook objects (Helm does not track them; the present ones marked as this"
                    + " release's hooks, not owned, unless they are not its Helm hooks):\n"
                    + "  · present   ConfigMap/NS/shop-migrated  (post-install, post-upgrade)\n"
                    + "summary: 5 to adopt, 0 missing, 1 hook object\n")
                .replace("NS", ns));
    assertThat(plan.render()).doesNotContain("s3cr3t");
    assertThat(store.latestRecord(ns, "shop")).isEmpty(); // planning wrote nothing

    kube.requests().reset();
    HelmImportResult result = importer.run(plan, removeRecords);

    // stamps only: the same pods, ReplicaSets and claim
    for (String key : objects(ns)) {
      assertThat(annotations(plane, key))
          .as(key)
          .containsEntry("capstan.dev/release", ns + "/shop")
          .containsEntry("capstan.dev/revision", "4");
    }
    assertThat(pods(core, ns)).isEqualTo(podsBefore);
    assertThat(replicaSets(apps, ns)).isEqualTo(replicaSetsBefore);
    assertThat(uid(plane, "", "v1", "persistentvolumeclaims", ns, "data-db-0"))
        .isEqualTo(claimBefore);
    assertThat(annotations(plane, "ConfigMap/" + ns + "/shop-migrated"))
        .doesNotContainKey("capstan.dev/release")
        .containsEntry("capstan.dev/hook-of", ns + "/shop")
        .containsEntry(
            "capstan.dev/hook-of-id", controller.get(ns, "shop").orElseThrow().identity().id());

    // history: three imported Helm revisions, then the adopting cast
    assertThat(result.importedRevisions()).containsExactly(1, 2, 3);
    assertThat(controller.history(ns, "shop"))
        .extracting(r -> r.revision() + " " + r.status() + " " + r.description())
        .containsExactly(
            "4 DEPLOYED adopted from Helm release shop revision 3",
            "3 SUPERSEDED imported from Helm revision 3 (deployed): Upgrade complete (chart"
                + " shop-0.1.0, app 1.0)",
            "2 SUPERSEDED imported from Helm revision 2 (superseded): Upgrade complete (chart"
                + " shop-0.1.0, app 1.0)",
            "1 SUPERSEDED imported from Helm revision 1 (superseded): Install complete (chart"
                + " shop-0.1.0, app 1.0)");
    Release cast = result.cast().release();
    assertThat(result.cast().plan().changes(Action.ADOPT)).hasSize(5);
    assertThat(cast.source()).isEqualTo("helm chart shop-0.1.0");
    assertThat(cast.version()).isEqualTo("1.0");

    // field ownership: Helm's manager is gone from every object, Capstan's applies
    Map<String, List<String>> handedOver = new TreeMap<>();
    result.handedOver().forEach((ref, entries) -> handedOver.put(ref.key(), entries));
    Map<String, List<String>> expected = new TreeMap<>();
    objects(ns).forEach(k -> expected.put(k, List.of(helmEntry)));
    assertThat(handedOver).isEqualTo(expected);
    for (String key : objects(ns)) {
      assertThat(managers(plane, key)).as(key).contains("capstan Apply").doesNotContain(helmEntry);
    }

    // Helm's records: kept (helm still lists the release) or removed
    List<String> helmRecords =
        core.listNamespacedSecret(ns).labelSelector("owner=helm").execute().getItems().stream()
            .map(s -> s.getMetadata().getName())
            .sorted()
            .toList();
    if (removeRecords) {
      assertThat(helmRecords).isEmpty();
      assertThat(result.removedRecords())
          .containsExactly(
              "Secret " + ns + "/sh.helm.release.v1.shop.v1",
              "Secret " + ns + "/sh.helm.release.v1.shop.v2",
              "Secret " + ns + "/sh.helm.release.v1.shop.v3");
      assertThat(helm.run("list", "-n", ns, "-q")).isEmpty();
    } else {
      assertThat(helmRecords)
          .containsExactly(
              "sh.helm.release.v1.shop.v1",
              "sh.helm.release.v1.shop.v2",
              "sh.helm.release.v1.shop.v3");
      assertThat(helm.run("list", "-n", ns, "-q")).isEqualTo("shop\n");
    }

    // the same chart with the same values, now cast by Capstan: only its post-upgrade hook runs
    // again (as helm upgrade runs it: the object Helm's hook left goes first, marked as this
    // release's by the import), history goes on
    ChartRelease chart =
        ChartReleases.render(
            HelmChartRenderer.of(Helm.binary(major)),
            ChartRequest.of(new ChartReference.Directory(CHART.toString()), ns, "shop")
                .withValues(
                    ChartValues.none()
                        .withSet("mode=slow")
                        .withSet("image=registry.example/shop:1.1"))
                .withCapabilities(KubeCapabilities.read(kube))
                .withCluster(
                    ClusterAccess.of(List.of(plane.kubeconfig().toString()), null, Map.of()))
                .withUpgrade(true));
    assertThat(chart.hooks())
        .extracting(Hook::describe)
        .containsExactly("ConfigMap/" + ns + "/shop-migrated (post-install, post-upgrade)");
    kube.requests().reset();
    CastResult fromChart = controller.cast(chart.input());
    assertThat(ObjectWrites.of(kube))
        .containsExactly(
            "DELETE configmaps " + ns + "/shop-migrated",
            "PATCH configmaps " + ns + "/shop-migrated");
    assertThat(fromChart.plan().changes(Action.UNCHANGED)).hasSize(5);
    assertThat(fromChart.release().revision()).isEqualTo(5);
    assertThat(java.util.Objects.requireNonNull(fromChart.release().chart()).describe())
        .isEqualTo("shop 0.1.0");
    assertThat(pods(core, ns)).isEqualTo(podsBefore);

    // a Capstan cast changing one ConfigMap writes exactly that object
    Payloads changed = edit(plan.payloads(), "shop-config", m -> put(m, "data.mode", "turbo"));
    kube.requests().reset();
    CastResult next = controller.cast(spec(ns, changed), changed);
    assertThat(next.release().revision()).isEqualTo(6);
    assertThat(ObjectWrites.of(kube)).containsExactly("PATCH configmaps " + ns + "/shop-config");
    assertThat(pods(core, ns)).isEqualTo(podsBefore);

    // a field Capstan stops applying is removed: no stale co-owner keeps it alive
    Payloads withoutGreeting = edit(changed, "web", HelmImportIT::withoutGreeting);
    controller.cast(spec(ns, withoutGreeting), withoutGreeting);
    assertThat(env(apps, ns)).containsExactly("MODE");

    // and Capstan uninstalls it
    controller.uninstall(ns, "shop", UninstallOptions.defaults());
    for (String key : objects(ns)) {
      String[] parts = key.split("/", -1);
      String name = parts[parts.length - 1];
      String plural =
          switch (parts[parts.length - 3]) {
            case "ConfigMap" -> "configmaps";
            case "Secret" -> "secrets";
            case "Service" -> "services";
            case "Deployment" -> "deployments";
            default -> "statefulsets";
          };
      String group = key.startsWith("apps/") ? "apps" : "";
      assertThat(exists(plane, group, "v1", plural, ns, name)).as(key).isFalse();
    }
    assertThat(exists(plane, "", "v1", "configmaps", ns, "shop-migrated")).isTrue();
  }

  private static ReleaseSpec spec(String ns, Payloads payloads) {
    return ReleaseSpec.of(ns, "shop", payloads)
        .withOptions(ReleaseOptions.defaults().withTimeout(PATIENT));
  }

  // ------------------------------------------------------------------ payload edits

  private static Payloads edit(
      Payloads payloads, String name, UnaryOperator<Map<String, Object>> f) {
    Payloads.Builder b = Payloads.builder();
    for (ResourceRef ref : payloads.refs()) {
      Manifest m = payloads.get(ref).orElseThrow();
      if (ref.name().equals(name) && !ref.kind().kind().equals("Service")) {
        Map<String, Object> tree = deepCopy(m.content());
        b.manifest(f.apply(tree));
      } else {
        b.manifest(m.content());
      }
    }
    return b.build();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> deepCopy(Map<String, ?> tree) {
    return (Map<String, Object>) copy(tree);
  }

  private static Object copy(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), copy(v)));
      return out;
    }
    if (node instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(copy(v)));
      return out;
    }
    return node;
  }

  private static Object child(Object parent, Object key) {
    Object value =
        parent instanceof Map<?, ?> map ? map.get(key) : ((List<?>) parent).get((Integer) key);
    return java.util.Objects.requireNonNull(value, String.valueOf(key));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> put(Map<String, Object> tree, String path, Object value) {
    String[] keys = path.split("\\.", -1);
    Map<String, Object> at = tree;
    for (int i = 0; i < keys.length - 1; i++) {
      at = (Map<String, Object>) child(at, keys[i]);
    }
    at.put(keys[keys.length - 1], value);
    return tree;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> withoutGreeting(Map<String, Object> tree) {
    Object web =
        child(child(child(child(child(tree, "spec"), "template"), "spec"), "containers"), 0);
    List<Object> env = (List<Object>) child(web, "env");
    env.removeIf(e -> "GREETING".equals(((Map<?, ?>) e).get("name")));
    return tree;
  }

  // ------------------------------------------------------------------ reads

  /** Waits until Helm's last upgrade rolled out: two pods (web, db-0), both Ready. */
  private static void settled(CoreV1Api core, String ns) {
    Await.until(
        "pods of " + ns + " settled",
        PATIENT,
        () -> {
          List<V1Pod> pods = core.listNamespacedPod(ns).execute().getItems();
          boolean done =
              pods.size() == 2
                  && pods.stream()
                      .allMatch(
                          p ->
                              p.getMetadata().getDeletionTimestamp() == null
                                  && p.getStatus() != null
                                  && p.getStatus().getConditions() != null
                                  && p.getStatus().getConditions().stream()
                                      .anyMatch(
                                          c ->
                                              "Ready".equals(c.getType())
                                                  && "True".equals(c.getStatus())));
          return done ? pods : null;
        });
  }

  private static Map<String, String> pods(CoreV1Api core, String ns) throws ApiException {
    Map<String, String> out = new TreeMap<>();
    for (V1Pod p : core.listNamespacedPod(ns).execute().getItems()) {
      out.put(p.getMetadata().getName(), p.getMetadata().getUid());
    }
    return out;
  }

  private static Map<String, String> replicaSets(AppsV1Api apps, String ns) throws ApiException {
    Map<String, String> out = new TreeMap<>();
    for (V1ReplicaSet r : apps.listNamespacedReplicaSet(ns).execute().getItems()) {
      out.put(r.getMetadata().getName(), r.getMetadata().getUid());
    }
    return out;
  }

  private static List<String> env(AppsV1Api apps, String ns) throws ApiException {
    return apps
        .readNamespacedDeployment("web", ns)
        .execute()
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getEnv()
        .stream()
        .map(e -> e.getName())
        .toList();
  }

  private static JsonObject raw(ControlPlane plane, String key) throws ApiException {
    String[] parts = key.split("/", -1);
    String name = parts[parts.length - 1];
    String ns = parts[parts.length - 2];
    String kind = parts[parts.length - 3];
    String group = parts.length == 4 ? parts[0] : "";
    String plural =
        switch (kind) {
          case "ConfigMap" -> "configmaps";
          case "Secret" -> "secrets";
          case "Service" -> "services";
          case "Deployment" -> "deployments";
          case "StatefulSet" -> "statefulsets";
          default -> throw new IllegalArgumentException(kind);
        };
    DynamicKubernetesObject o =
        new DynamicKubernetesApi(group, "v1", plural, plane.client())
            .get(ns, name)
            .throwsApiException()
            .getObject();
    return o.getRaw();
  }

  private static Map<String, String> annotations(ControlPlane plane, String key)
      throws ApiException {
    Map<String, String> out = new TreeMap<>();
    JsonObject meta = raw(plane, key).getAsJsonObject("metadata");
    if (meta.get("annotations") instanceof JsonObject a) {
      a.entrySet().forEach(e -> out.put(e.getKey(), e.getValue().getAsString()));
    }
    return out;
  }

  private static List<String> managers(ControlPlane plane, String key) throws ApiException {
    List<String> out = new ArrayList<>();
    JsonArray entries = raw(plane, key).getAsJsonObject("metadata").getAsJsonArray("managedFields");
    for (JsonElement e : entries) {
      JsonObject o = e.getAsJsonObject();
      if (o.get("subresource") == null) {
        out.add(o.get("manager").getAsString() + " " + o.get("operation").getAsString());
      }
    }
    return out;
  }

  private static String uid(
      ControlPlane plane, String group, String version, String plural, String ns, String name)
      throws ApiException {
    return new DynamicKubernetesApi(group, version, plural, plane.client())
        .get(ns, name)
        .throwsApiException()
        .getObject()
        .getMetadata()
        .getUid();
  }

  private static boolean exists(
      ControlPlane plane, String group, String version, String plural, String ns, String name) {
    return new DynamicKubernetesApi(group, version, plural, plane.client())
        .get(ns, name)
        .isSuccess();
  }

  /** A PersistentVolume bound ahead to the StatefulSet's claim, so its pod can be scheduled. */
  private static void volumeFor(ControlPlane plane, String ns, String claim) throws ApiException {
    JsonObject pv =
        JsonParser.parseString(
                """
                {"apiVersion":"v1","kind":"PersistentVolume",
                 "metadata":{"name":"%s"},
                 "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
                         "persistentVolumeReclaimPolicy":"Delete","storageClassName":"%s",
                         "hostPath":{"path":"/tmp/%s"},
                         "claimRef":{"namespace":"%s","name":"%s"}}}
                """
                    .formatted(
                        "pv-" + ns + "-" + claim,
                        ControlPlaneExtension.DEFAULT_STORAGE_CLASS,
                        ns,
                        ns,
                        claim))
            .getAsJsonObject();
    new DynamicKubernetesApi("", "v1", "persistentvolumes", plane.client())
        .create(new DynamicKubernetesObject(pv))
        .throwsApiException();
  }
}
