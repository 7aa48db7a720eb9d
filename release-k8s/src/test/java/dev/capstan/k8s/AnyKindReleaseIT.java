package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonObject;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneExtension;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.PatchOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Releases of any kind on the real control plane, with the example application {@code
 * examples/src/main/resources/apps/shop}: ServiceAccount, Role, RoleBinding, ClusterRole,
 * ConfigMap, Secret, a CRD with two custom resources, a migration Job in wave -1, a Deployment with
 * a full pod spec, a StatefulSet with volumeClaimTemplates, a CronJob, Services, an Ingress, an
 * HPA, a PDB and a NetworkPolicy.
 */
@ControlPlaneTest
class AnyKindReleaseIT {
  private static final Path SHOP =
      Path.of(
          System.getProperty("capstan.examples.shop", "../examples/src/main/resources/apps/shop"));
  private static final Duration PATIENT = Duration.ofMinutes(3);

  /** The documents of the example application, file by file in name order. */
  static List<Map<String, Object>> shopDocuments() throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(SHOP)) {
      files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    List<Map<String, Object>> out = new ArrayList<>();
    Load load = new Load(LoadSettings.builder().build());
    for (Path file : files) {
      for (Object doc : load.loadAllFromString(Files.readString(file, StandardCharsets.UTF_8))) {
        if (doc instanceof Map<?, ?> map) {
          Map<String, Object> object = new LinkedHashMap<>();
          map.forEach((k, v) -> object.put(String.valueOf(k), v));
          out.add(object);
        }
      }
    }
    return out;
  }

  static Payloads shop(String ns, Predicate<Manifest> keep) throws IOException {
    Payloads.Builder payloads = Payloads.builder();
    for (Map<String, Object> doc : shopDocuments()) {
      Manifest m = Manifest.of(doc, ns);
      if (keep.test(m)) {
        payloads.add(m);
      }
    }
    return payloads.build();
  }

  private static ReleaseSpec spec(String ns, Payloads payloads) {
    return ReleaseSpec.of(ns, "shop", payloads)
        .withOptions(ReleaseOptions.defaults().withTimeout(PATIENT));
  }

  /** A PersistentVolume bound ahead to the StatefulSet's claim, so its pod can be scheduled. */
  private static void volumeFor(Cluster cluster, String ns, String claim) throws ApiException {
    JsonObject pv =
        com.google.gson.JsonParser.parseString(
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
    new DynamicKubernetesApi("", "v1", "persistentvolumes", cluster.client())
        .create(new DynamicKubernetesObject(pv))
        .throwsApiException();
  }

  private static DynamicKubernetesApi api(
      Cluster cluster, String group, String version, String plural) {
    return new DynamicKubernetesApi(group, version, plural, cluster.client());
  }

  private static boolean exists(
      Cluster cluster, String group, String version, String plural, String ns, String name) {
    DynamicKubernetesApi api = api(cluster, group, version, plural);
    return (ns.isEmpty() ? api.get(name) : api.get(ns, name)).isSuccess();
  }

  private static List<String> objectWrites(Cluster cluster) {
    return ReleaseLifecycleIT.objectWrites(cluster);
  }

  @Test
  void theShopInstallsHealthyAndEveryLaterCastWritesOnlyWhatChanged(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    volumeFor(cluster, ns, "data-db-0");
    ReleaseController controller = cluster.controller().build();
    Payloads v1 = shop(ns, m -> true);

    // Install: a CRD and its custom resources in one cast, the Job (wave -1) before all else.
    long start = System.nanoTime();
    CastResult first = controller.cast(spec(ns, v1), v1);
    long installMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(first.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(first.plan().changes(Action.CREATE)).hasSize(19);
    List<String> installed = objectWrites(cluster);
    assertThat(installed)
        .containsSubsequence(
            "PATCH jobs " + ns + "/migrate", // wave -1, completed before the rest
            "PATCH customresourcedefinitions widgets.shop.example.com",
            "PATCH deployments " + ns + "/web",
            "PATCH widgets " + ns + "/blue");
    assertThat(installed)
        .contains(
            "PATCH clusterroles shop-metrics-reader",
            "PATCH statefulsets " + ns + "/db",
            "PATCH ingresses " + ns + "/web");
    JsonObject job =
        api(cluster, "batch", "v1", "jobs")
            .get(ns, "migrate")
            .throwsApiException()
            .getObject()
            .getRaw();
    assertThat(job.getAsJsonObject("status").get("succeeded").getAsInt()).isEqualTo(1);
    JsonObject db =
        api(cluster, "apps", "v1", "statefulsets")
            .get(ns, "db")
            .throwsApiException()
            .getObject()
            .getRaw();
    assertThat(db.getAsJsonObject("status").get("readyReplicas").getAsInt()).isEqualTo(1);
    JsonObject role =
        api(cluster, "rbac.authorization.k8s.io", "v1", "clusterroles")
            .get("shop-metrics-reader")
            .throwsApiException()
            .getObject()
            .getRaw();
    assertThat(
            role.getAsJsonObject("metadata")
                .getAsJsonObject("annotations")
                .get(Stamps.RELEASE)
                .getAsString())
        .isEqualTo(ns + "/shop");
    assertThat(exists(cluster, "shop.example.com", "v1", "widgets", ns, "green")).isTrue();

    // An identical re-cast writes no object.
    cluster.requests().reset();
    CastResult again = controller.cast(spec(ns, v1), v1);
    assertThat(again.plan().changes(Action.UNCHANGED)).hasSize(19);
    assertThat(objectWrites(cluster)).isEmpty();
    assertThat(cluster.writes().keySet())
        .allMatch(k -> k.endsWith(" secrets") || k.endsWith(" leases"));

    // Changing a ConfigMap writes exactly it and the Deployment that reads it (config rollout).
    Payloads v2 =
        shop(ns, m -> true)
            .with(
                Manifest.of(
                    Map.of(
                        "apiVersion",
                        "v1",
                        "kind",
                        "ConfigMap",
                        "metadata",
                        Map.of("name", "shop-settings", "namespace", ns),
                        "data",
                        Map.of("currency", "EUR", "page-size", "50"))));
    cluster.requests().reset();
    CastResult changed = controller.cast(spec(ns, v2), v2);
    assertThat(ReleaseLifecycleIT.actions(changed.plan()))
        .filteredOn(a -> !a.startsWith("unchanged ") && !a.startsWith("reference "))
        .containsExactly(
            "update ConfigMap/" + ns + "/shop-settings", "update apps/Deployment/" + ns + "/web");
    assertThat(objectWrites(cluster))
        .containsExactly(
            "PATCH configmaps " + ns + "/shop-settings", "PATCH deployments " + ns + "/web");

    // An Ingress edited by another field manager plans REPAIR and is repaired.
    api(cluster, "networking.k8s.io", "v1", "ingresses")
        .patch(
            ns,
            "web",
            V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
            new V1Patch(
                "{\"spec\":{\"rules\":[{\"host\":\"evil.example.com\",\"http\":{\"paths\":"
                    + "[{\"path\":\"/\",\"pathType\":\"Prefix\",\"backend\":{\"service\":"
                    + "{\"name\":\"web\",\"port\":{\"name\":\"http\"}}}}]}}]}}"),
            new PatchOptions().fieldManager("kubectl-edit"))
        .throwsApiException();
    Plan drifted = controller.plan(spec(ns, v2));
    assertThat(drifted.changes(Action.REPAIR))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref().key()).isEqualTo("networking.k8s.io/Ingress/" + ns + "/web");
              assertThat(c.reason()).isEqualTo("drift: field spec.rules set by kubectl-edit");
            });
    cluster.requests().reset();
    controller.cast(spec(ns, v2), v2);
    assertThat(objectWrites(cluster)).containsExactly("PATCH ingresses " + ns + "/web");
    assertThat(ingressHost(cluster, ns)).isEqualTo("shop.example.com");
    assertThat(controller.plan(spec(ns, v2)).changes(Action.REPAIR)).isEmpty();

    // Removing the CronJob prunes it, after every apply.
    Payloads v3 =
        shop(ns, m -> !m.kind().kind().equals("CronJob"))
            .with(
                v2.get(
                        dev.capstan.release.model.ResourceRef.parse(
                            "ConfigMap/" + ns + "/shop-settings"))
                    .orElseThrow());
    cluster.requests().reset();
    CastResult pruned = controller.cast(spec(ns, v3), v3);
    assertThat(pruned.plan().changes(Action.PRUNE))
        .extracting(c -> c.ref().key())
        .containsExactly("batch/CronJob/" + ns + "/report");
    assertThat(objectWrites(cluster)).containsExactly("DELETE cronjobs " + ns + "/report");
    assertThat(exists(cluster, "batch", "v1", "cronjobs", ns, "report")).isFalse();

    // An unowned Ingress of the same name as one in the release is a CONFLICT before any write.
    JsonObject legacy =
        com.google.gson.JsonParser.parseString(
                """
                {"apiVersion":"networking.k8s.io/v1","kind":"Ingress",
                 "metadata":{"name":"legacy","namespace":"%s"},
                 "spec":{"defaultBackend":{"service":{"name":"web","port":{"number":80}}}}}
                """
                    .formatted(ns))
            .getAsJsonObject();
    api(cluster, "networking.k8s.io", "v1", "ingresses")
        .create(new DynamicKubernetesObject(legacy))
        .throwsApiException();
    Payloads withLegacy =
        v3.with(
            Manifest.of(
                Map.of(
                    "apiVersion",
                    "networking.k8s.io/v1",
                    "kind",
                    "Ingress",
                    "metadata",
                    Map.of("name", "legacy", "namespace", ns),
                    "spec",
                    Map.of(
                        "defaultBackend",
                        Map.of(
                            "service", Map.of("name", "web", "port", Map.of("number", 8080)))))));
    cluster.requests().reset();
    ReleaseConflictException conflict =
        catchThrowableOfType(
            ReleaseConflictException.class,
            () -> controller.cast(spec(ns, withLegacy), withLegacy));
    assertThat(conflict.plan().conflicts())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref().key()).isEqualTo("networking.k8s.io/Ingress/" + ns + "/legacy");
              assertThat(c.reason())
                  .isEqualTo(
                      "exists and is unmanaged; pass adopt (the CLI's --adopt) to take ownership");
            });
    assertThat(objectWrites(cluster)).isEmpty();

    // Uninstall deletes in reverse order and keeps the CRD.
    cluster.requests().reset();
    controller.uninstall(ns, "shop", UninstallOptions.defaults());
    List<String> deletes =
        objectWrites(cluster).stream().filter(l -> l.startsWith("DELETE ")).toList();
    assertThat(deletes)
        .containsSubsequence(
            "DELETE widgets " + ns + "/blue",
            "DELETE ingresses " + ns + "/web",
            "DELETE deployments " + ns + "/web",
            "DELETE configmaps " + ns + "/shop-settings",
            "DELETE serviceaccounts " + ns + "/shop",
            "DELETE clusterroles shop-metrics-reader");
    assertThat(deletes).noneMatch(l -> l.contains("customresourcedefinitions"));
    assertThat(objectWrites(cluster))
        .contains("PATCH customresourcedefinitions widgets.shop.example.com");
    JsonObject crd =
        api(cluster, "apiextensions.k8s.io", "v1", "customresourcedefinitions")
            .get("widgets.shop.example.com")
            .throwsApiException()
            .getObject()
            .getRaw();
    JsonObject crdAnnotations = crd.getAsJsonObject("metadata").getAsJsonObject("annotations");
    assertThat(crdAnnotations == null || !crdAnnotations.has(Stamps.RELEASE)).isTrue();
    assertThat(
            exists(
                cluster,
                "rbac.authorization.k8s.io",
                "v1",
                "clusterroles",
                "",
                "shop-metrics-reader"))
        .isFalse();
    System.out.println(
        "AnyKindReleaseIT: install of " + v1.size() + " objects took " + installMillis + " ms");
  }

  private static String ingressHost(Cluster cluster, String ns) throws ApiException {
    return api(cluster, "networking.k8s.io", "v1", "ingresses")
        .get(ns, "web")
        .throwsApiException()
        .getObject()
        .getRaw()
        .getAsJsonObject("spec")
        .getAsJsonArray("rules")
        .get(0)
        .getAsJsonObject()
        .get("host")
        .getAsString();
  }

  @Test
  void aStatefulSetWhoseImageNeverGetsReadyFailsTheCastFastWithTheReason(
      ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Manifest db =
        Manifest.of(
            Map.of(
                "apiVersion",
                "apps/v1",
                "kind",
                "StatefulSet",
                "metadata",
                Map.of("name", "db"),
                "spec",
                Map.of(
                    "serviceName",
                    "db",
                    "replicas",
                    1,
                    "selector",
                    Map.of("matchLabels", Map.of("app", "db")),
                    "template",
                    Map.of(
                        "metadata", Map.of("labels", Map.of("app", "db")),
                        "spec",
                            Map.of(
                                "containers",
                                List.of(
                                    Map.of(
                                        "name", "db", "image", ControlPlane.NEVER_READY_IMAGE)))))),
            ns);
    Payloads payloads = Payloads.of(db);

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class,
            () -> cluster.controller().build().cast(spec(ns, payloads), payloads));

    assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.result().release().failure())
        .startsWith(
            "verify failed: apps/StatefulSet/"
                + ns
                + "/db is not ready: StatefulSet "
                + ns
                + "/db: pod db-0: container db: ImagePullBackOff");
  }

  @Test
  void aJobThatFailsFailsTheCastFastWithTheReason(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Manifest job =
        Manifest.of(
            Map.of(
                "apiVersion",
                "batch/v1",
                "kind",
                "Job",
                "metadata",
                Map.of("name", "migrate"),
                "spec",
                Map.of(
                    "backoffLimit", 0,
                    "activeDeadlineSeconds", 2,
                    "template",
                        Map.of(
                            "spec",
                            Map.of(
                                "restartPolicy",
                                "Never",
                                "containers",
                                List.of(
                                    Map.of(
                                        "name",
                                        "migrate",
                                        "image",
                                        ControlPlane.NEVER_READY_IMAGE)))))),
            ns);
    Payloads payloads = Payloads.of(job);

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class,
            () -> cluster.controller().build().cast(spec(ns, payloads), payloads));

    assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.result().release().failure())
        .startsWith(
            "verify failed: batch/Job/" + ns + "/migrate is not ready: Job " + ns + "/migrate: ");
  }

  @Test
  void aKindTheClusterDoesNotServeIsRefusedBeforeAnyWrite(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Manifest gizmo =
        Manifest.of(
            Map.of(
                "apiVersion",
                "example.com/v1",
                "kind",
                "Gizmo",
                "metadata",
                Map.of("name", "g1"),
                "spec",
                Map.of("size", 1)),
            ns);
    Payloads payloads = Payloads.of(gizmo);

    InvalidReleaseException invalid =
        catchThrowableOfType(
            InvalidReleaseException.class,
            () -> cluster.controller().build().cast(spec(ns, payloads), payloads));

    assertThat(invalid).hasMessageContaining("the cluster does not serve example.com/Gizmo");
    assertThat(cluster.writes()).isEmpty();
  }
}
