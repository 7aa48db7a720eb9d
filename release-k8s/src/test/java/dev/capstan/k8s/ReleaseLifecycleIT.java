package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class ReleaseLifecycleIT {

  private static Payloads v1(String ns) {
    return Payloads.builder()
        .configMap(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue", "size", "L")))
        .secret(SecretSpec.of(ns, "creds", Map.of("password", "s3cret")))
        .volume(VolumeSpec.of(ns, "data", "1Gi"))
        .service(
            ServiceSpec.builder(ns, "web")
                .image("registry.example/web:1.0")
                .replicas(2)
                .port("http", 8080)
                .env("MODE", "prod")
                .envFromConfigMap("settings")
                .resources(new ServiceSpec.Resources("0.5", "64Mi", "1000m", "128Mi"))
                .readinessProbe(ServiceSpec.Probe.http("/healthz", 8080))
                .label("tier", "front")
                .annotation("team", "shop")
                .build())
        .build();
  }

  private static ReleaseSpec spec(String ns, Payloads payloads) {
    return ReleaseSpec.of(ns, "app", payloads);
  }

  @Test
  void firstCastCreatesStampedObjectsAndAnIdenticalCastWritesNoObject(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();

    CastResult first = controller.cast(spec(ns, v1(ns)), v1(ns));

    assertThat(first.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(actions(first.plan()))
        .containsExactly(
            "reference Namespace//" + ns,
            "create PersistentVolumeClaim/" + ns + "/data",
            "create ConfigMap/" + ns + "/settings",
            "create Secret/" + ns + "/creds",
            "create apps/Deployment/" + ns + "/web",
            "create Service/" + ns + "/web");
    String id = first.release().id();
    V1Deployment web = cluster.apps.readNamespacedDeployment("web", ns).execute();
    assertStamped(web.getMetadata(), ns, id, 1);
    assertThat(web.getMetadata().getLabels()).containsEntry("tier", "front");
    assertThat(web.getMetadata().getAnnotations()).containsEntry("team", "shop");
    assertThat(web.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example/web:1.0");
    V1Service svc = cluster.core.readNamespacedService("web", ns).execute();
    assertStamped(svc.getMetadata(), ns, id, 1);
    assertThat(svc.getSpec().getPorts()).hasSize(1);
    assertThat(svc.getSpec().getPorts().get(0).getPort()).isEqualTo(8080);
    V1ConfigMap settings = cluster.core.readNamespacedConfigMap("settings", ns).execute();
    assertStamped(settings.getMetadata(), ns, id, 1);
    assertThat(settings.getData()).containsExactly(entry("color", "blue"), entry("size", "L"));
    V1Secret creds = cluster.core.readNamespacedSecret("creds", ns).execute();
    assertStamped(creds.getMetadata(), ns, id, 1);
    assertThat(new String(creds.getData().get("password"), StandardCharsets.UTF_8))
        .isEqualTo("s3cret");
    V1PersistentVolumeClaim data =
        cluster.core.readNamespacedPersistentVolumeClaim("data", ns).execute();
    assertStamped(data.getMetadata(), ns, id, 1);
    assertThat(data.getMetadata().getAnnotations())
        .containsEntry("capstan.dev/reclaim-policy", "Delete");

    // The API server rewrote 0.5 as 500m and 1000m as 1; defaults were added: none is drift.
    Plan again = controller.plan(spec(ns, v1(ns)));
    assertThat(actions(again))
        .containsExactly(
            "reference Namespace//" + ns,
            "unchanged PersistentVolumeClaim/" + ns + "/data",
            "unchanged ConfigMap/" + ns + "/settings",
            "unchanged Secret/" + ns + "/creds",
            "unchanged apps/Deployment/" + ns + "/web",
            "unchanged Service/" + ns + "/web");

    cluster.requests().reset();
    CastResult second = controller.cast(spec(ns, v1(ns)), v1(ns));

    assertThat(second.release().revision()).isEqualTo(2);
    assertThat(second.plan().changes(Action.UNCHANGED)).hasSize(5);
    // Exactly the reads, the record and the lease: no object write.
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                entry("LIST secrets", 2L), // the records once, under the lease; observe
                entry("LIST configmaps", 1L), // (the namespace: the lease was created in it)
                entry("LIST persistentvolumeclaims", 1L),
                entry("LIST deployments", 1L), // observe; nothing written, nothing to wait for
                entry("LIST services", 1L),
                entry("CREATE leases", 1L), // acquire
                entry("DELETE leases", 1L), // release
                // revision 2 DEPLOYED (no object written: no PENDING); 1 is read superseded
                entry("CREATE secrets", 1L)));
    assertThat(cluster.writes().keySet())
        .allMatch(k -> k.endsWith(" secrets") || k.endsWith(" leases"));
    assertThat(
            cluster
                .apps
                .readNamespacedDeployment("web", ns)
                .execute()
                .getMetadata()
                .getGeneration())
        .isEqualTo(web.getMetadata().getGeneration());
  }

  @Test
  void secondCastUpdatesChangedObjectsAndPrunesRemovedOnes(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    controller.cast(spec(ns, v1(ns)), v1(ns));
    Payloads v2 =
        v1(ns)
            .without(ResourceRef.of(Kind.SECRET, ns, "creds"))
            .with(ConfigMapSpec.of(ns, "settings", Map.of("color", "green")))
            .with(ConfigMapSpec.of(ns, "features", Map.of("beta", "on")))
            .with(
                ((ServiceSpec)
                        v1(ns).item(ResourceRef.of(Kind.DEPLOYMENT, ns, "web")).orElseThrow())
                    .withImage("registry.example/web:2.0"));

    cluster.requests().reset();
    CastResult result = controller.cast(spec(ns, v2), v2);

    assertThat(actions(result.plan()))
        .containsExactly(
            "reference Namespace//" + ns,
            "unchanged PersistentVolumeClaim/" + ns + "/data",
            "create ConfigMap/" + ns + "/features",
            "update ConfigMap/" + ns + "/settings",
            "update apps/Deployment/" + ns + "/web",
            "unchanged Service/" + ns + "/web",
            "prune Secret/" + ns + "/creds");
    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsExactly(entry("color", "green")); // "size" was Capstan's, so it is gone
    assertThat(cluster.core.readNamespacedConfigMap("features", ns).execute().getData())
        .containsExactly(entry("beta", "on"));
    assertThat(cluster.image(ns, "web")).isEqualTo("registry.example/web:2.0");
    assertThat(cluster.core.listNamespacedSecret(ns).execute().getItems())
        .extracting(s -> s.getMetadata().getName())
        .doesNotContain("creds");
    // One write per changed object (the service's Service did not change: no write), kind by
    // kind in apply order (objects of one kind are applied in parallel), the prune last.
    List<String> writes = objectWrites(cluster);
    // (features is new: one server-side apply that cannot create over an existing object)
    assertThat(writes).hasSize(4);
    assertThat(writes.subList(0, 2))
        .containsExactlyInAnyOrder(
            "PATCH configmaps " + ns + "/features", "PATCH configmaps " + ns + "/settings");
    assertThat(writes.subList(2, 4))
        .containsExactly("PATCH deployments " + ns + "/web", "DELETE secrets " + ns + "/creds");
  }

  @Test
  void configMapEditedByAnotherFieldManagerIsPlannedAsRepairAndFixed(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    controller.cast(spec(ns, v1(ns)), v1(ns));

    cluster.applyConfigMapAs("intruder", ns, "settings", Map.of("color", "red"), true);

    Plan plan = controller.plan(spec(ns, v1(ns)));
    assertThat(plan.changes(Action.REPAIR))
        .extracting(c -> c.ref().key())
        .containsExactly("ConfigMap/" + ns + "/settings");
    assertThat(plan.changes(Action.UNCHANGED)).hasSize(4);

    cluster.requests().reset();
    controller.cast(spec(ns, v1(ns)), v1(ns));

    assertThat(objectWrites(cluster)).containsExactly("PATCH configmaps " + ns + "/settings");
    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsExactly(entry("color", "blue"), entry("size", "L"));
    assertThat(cluster.fieldsOwnedBy("capstan", "", "v1", "configmaps", ns, "settings"))
        .contains("f:color");
    assertThat(cluster.fieldsOwnedBy("intruder", "", "v1", "configmaps", ns, "settings"))
        .doesNotContain("f:color");
    assertThat(actions(controller.plan(spec(ns, v1(ns))))).allMatch(a -> !a.startsWith("repair"));
  }

  @Test
  void keysAndLabelsOtherManagersAddAreTheirsAndNoDrift(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    controller.cast(spec(ns, v1(ns)), v1(ns));

    // Another tool adds a key of its own (no conflict: Capstan never applied "extra").
    cluster.applyConfigMapAs("sidecar-tool", ns, "settings", Map.of("extra", "1"), false);
    cluster.mergePatchDeployment(ns, "web", "{\"metadata\":{\"labels\":{\"mesh\":\"on\"}}}");

    assertThat(actions(controller.plan(spec(ns, v1(ns)))))
        .containsExactly(
            "reference Namespace//" + ns,
            "unchanged PersistentVolumeClaim/" + ns + "/data",
            "unchanged ConfigMap/" + ns + "/settings",
            "unchanged Secret/" + ns + "/creds",
            "unchanged apps/Deployment/" + ns + "/web",
            "unchanged Service/" + ns + "/web");
  }

  @Test
  void objectDeletedOutOfBandIsRecreated(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    controller.cast(spec(ns, v1(ns)), v1(ns));
    cluster.core.deleteNamespacedConfigMap("settings", ns).execute();

    CastResult result = controller.cast(spec(ns, v1(ns)), v1(ns));

    PlannedChange recreate = result.plan().changes(Action.CREATE).get(0);
    assertThat(recreate.ref().key()).isEqualTo("ConfigMap/" + ns + "/settings");
    assertThat(recreate.reason()).isEqualTo("recreate: deleted out of band");
    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsEntry("color", "blue");
  }

  @Test
  void existingUnownedObjectIsAConflictWithNoObjectWriteAndAdoptTakesItsFields(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    cluster.applyConfigMapAs("other-tool", ns, "settings", Map.of("color", "red"), false);
    ReleaseController controller = cluster.controller().build();

    ReleaseConflictException conflict =
        catchThrowableOfType(
            ReleaseConflictException.class, () -> controller.cast(spec(ns, v1(ns)), v1(ns)));

    assertThat(conflict.plan().conflicts())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref().key()).isEqualTo("ConfigMap/" + ns + "/settings");
              assertThat(c.reason())
                  .isEqualTo(
                      "exists and is unmanaged; pass adopt (the CLI's --adopt) to take ownership");
            });
    // Planned under the lease: taken and given up, and nothing else written.
    assertThat(cluster.writes())
        .containsExactlyInAnyOrderEntriesOf(Map.of("CREATE leases", 1L, "DELETE leases", 1L));
    // Reads only: the observation LISTs (built-in kinds: no discovery round).
    assertThat(cluster.requests().counts().keySet())
        .allMatch(k -> k.startsWith("LIST ") || k.endsWith(" leases"));

    CastResult adopted = controller.cast(spec(ns, v1(ns)).withAdopt(true), v1(ns));

    assertThat(adopted.plan().changes(Action.ADOPT))
        .extracting(c -> c.ref().key())
        .containsExactly("ConfigMap/" + ns + "/settings");
    V1ConfigMap settings = cluster.core.readNamespacedConfigMap("settings", ns).execute();
    assertThat(settings.getData()).containsEntry("color", "blue");
    assertStamped(settings.getMetadata(), ns, adopted.release().id(), 1);
    // The forced apply took the field from the other manager instead of failing on the conflict.
    assertThat(cluster.fieldsOwnedBy("capstan", "", "v1", "configmaps", ns, "settings"))
        .contains("f:color");
    assertThat(cluster.fieldsOwnedBy("other-tool", "", "v1", "configmaps", ns, "settings"))
        .doesNotContain("f:color");
  }

  @Test
  void objectOfAnotherReleaseIsNeverTouched(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads shared = Payloads.of(ConfigMapSpec.of(ns, "shared", Map.of("owner", "first")));
    CastResult first = controller.cast(ReleaseSpec.of(ns, "first", shared), shared);
    String before =
        cluster
            .core
            .readNamespacedConfigMap("shared", ns)
            .execute()
            .getMetadata()
            .getResourceVersion();
    Payloads mine = Payloads.of(ConfigMapSpec.of(ns, "shared", Map.of("owner", "second")));

    cluster.requests().reset();
    for (boolean adopt : List.of(false, true)) {
      ReleaseConflictException conflict =
          catchThrowableOfType(
              ReleaseConflictException.class,
              () -> controller.cast(ReleaseSpec.of(ns, "second", mine).withAdopt(adopt), mine));
      assertThat(conflict.plan().conflicts())
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.reason())
                    .isEqualTo("owned by release " + ns + "/first; never taken over");
                assertThat(c.owner()).isEqualTo(first.release().identity());
              });
    }

    // Planned under the lease, twice: taken and given up, and nothing else written.
    assertThat(cluster.writes())
        .containsExactlyInAnyOrderEntriesOf(Map.of("CREATE leases", 2L, "DELETE leases", 2L));
    V1ConfigMap after = cluster.core.readNamespacedConfigMap("shared", ns).execute();
    assertThat(after.getMetadata().getResourceVersion()).isEqualTo(before);
    assertThat(after.getData()).containsEntry("owner", "first");
    assertThat(
            cluster.orchestrator.delete(
                ResourceRef.of(Kind.CONFIG_MAP, ns, "shared"),
                new dev.capstan.release.model.ReleaseIdentity(ns, "second", "someone-else")))
        .isFalse();
    assertThat(
            cluster
                .core
                .readNamespacedConfigMap("shared", ns)
                .execute()
                .getMetadata()
                .getResourceVersion())
        .isEqualTo(before);
  }

  @Test
  void uninstallDeletesInReverseOrderKeepsARetainVolumeThatAReinstallReadopts(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads payloads =
        v1(ns)
            .with(
                VolumeSpec.of(ns, "data", "1Gi").withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN))
            .with(VolumeSpec.of(ns, "cache", "2Gi"))
            .with(ConfigMapSpec.of(ns, "another", Map.of("k", "v")));
    CastResult installed = controller.cast(spec(ns, payloads), payloads);

    cluster.requests().reset();
    UninstallResult uninstalled = controller.uninstall(ns, "app", UninstallOptions.defaults());

    assertThat(uninstalled.deleted())
        .extracting(ResourceRef::key)
        .containsExactly(
            "Service/" + ns + "/web",
            "apps/Deployment/" + ns + "/web",
            "Secret/" + ns + "/creds",
            "ConfigMap/" + ns + "/another",
            "ConfigMap/" + ns + "/settings",
            "PersistentVolumeClaim/" + ns + "/cache");
    assertThat(uninstalled.retained())
        .extracting(ResourceRef::key)
        .containsExactly("PersistentVolumeClaim/" + ns + "/data");
    // one rank at a time in reverse order; within a rank the writes go out in parallel: the two
    // ConfigMaps, and the two volume claims (one deleted, the retained one un-stamped)
    List<String> writes = objectWrites(cluster);
    assertThat(writes).hasSize(7);
    assertThat(writes.subList(0, 3))
        .containsExactly(
            "DELETE services " + ns + "/web",
            "DELETE deployments " + ns + "/web",
            "DELETE secrets " + ns + "/creds");
    assertThat(writes.subList(3, 5))
        .containsExactlyInAnyOrder(
            "DELETE configmaps " + ns + "/another", "DELETE configmaps " + ns + "/settings");
    assertThat(writes.subList(5, 7))
        .containsExactlyInAnyOrder(
            "DELETE persistentvolumeclaims " + ns + "/cache",
            "PATCH persistentvolumeclaims " + ns + "/data");
    V1PersistentVolumeClaim data =
        cluster.core.readNamespacedPersistentVolumeClaim("data", ns).execute();
    assertThat(data.getMetadata().getLabels()).isNullOrEmpty();
    assertThat(data.getMetadata().getAnnotations())
        .doesNotContainKeys(
            "capstan.dev/release",
            "capstan.dev/release-id",
            "capstan.dev/revision",
            "capstan.dev/content-hash")
        .containsEntry("capstan.dev/reclaim-policy", "Retain");
    assertThat(data.getMetadata().getUid()).isNotNull();
    assertThat(controller.get(ns, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);

    CastResult reinstalled = controller.cast(spec(ns, payloads), payloads);

    assertThat(reinstalled.plan().changes(Action.ADOPT))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref().key()).isEqualTo("PersistentVolumeClaim/" + ns + "/data");
              assertThat(c.reason()).isEqualTo("re-adopt, retained earlier");
            });
    V1PersistentVolumeClaim readopted =
        cluster.core.readNamespacedPersistentVolumeClaim("data", ns).execute();
    assertThat(readopted.getMetadata().getUid()).isEqualTo(data.getMetadata().getUid());
    assertStamped(
        readopted.getMetadata(), ns, installed.release().id(), reinstalled.release().revision());

    UninstallResult purged =
        controller.uninstall(ns, "app", UninstallOptions.defaults().withPurge(true));

    assertThat(purged.purged()).isTrue();
    assertThat(cluster.recordSecrets(ns)).isEmpty();
    assertThat(controller.get(ns, "app")).isEmpty();
  }

  static void assertStamped(V1ObjectMeta meta, String ns, String id, int revision) {
    assertThat(meta.getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "capstan")
        .containsEntry("capstan.dev/release-namespace", ns)
        .containsEntry("capstan.dev/release-name", "app")
        .containsEntry("capstan.dev/release-id", id);
    assertThat(meta.getAnnotations())
        .containsEntry("capstan.dev/release", ns + "/app")
        .containsEntry("capstan.dev/release-id", id)
        .containsEntry("capstan.dev/revision", Integer.toString(revision))
        .containsKey("capstan.dev/content-hash");
  }

  /** {@code "update configmap/ns/settings"} for each change, in plan order. */
  static List<String> actions(Plan plan) {
    return plan.changes().stream()
        .map(c -> c.action().name().toLowerCase(java.util.Locale.ROOT) + " " + c.ref().key())
        .toList();
  }

  /** The writes to objects, in order: without the record Secrets and the Lease. */
  static List<String> objectWrites(Cluster cluster) {
    return cluster.writeLog().stream()
        .filter(
            l ->
                !l.contains(" leases ")
                    && !l.contains("/capstan.release.v1.")
                    && !l.startsWith("CREATE secrets ") // records are created, objects applied
                    && !l.startsWith("DELETECOLLECTION secrets "))
        .collect(Collectors.toList());
  }
}
