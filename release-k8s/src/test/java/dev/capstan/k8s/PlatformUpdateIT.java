package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonObject;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.RolloutStatus;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.update.UpdateException;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.cluster.Workload;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.manifest.PlatformReleases;
import dev.capstan.update.plan.CrdResult;
import dev.capstan.update.plan.PlanAction;
import dev.capstan.update.plan.PlanRow;
import dev.capstan.update.plan.Selection;
import dev.capstan.update.plan.UpdateBlockedException;
import dev.capstan.update.plan.UpdatePlan;
import dev.capstan.update.plan.UpdatePlanner;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadResult;
import dev.capstan.update.result.WorkloadStatus;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Platform updates with update-core's planner and applier over {@link KubernetesPlatformCluster}:
 * real Deployments, rollouts waited for by watch (the sleeper refuses to be called, so any polling
 * fails the test), rollback on a never-ready image.
 */
@ControlPlaneTest
class PlatformUpdateIT {
  private static final String OLD = "v1.0.0";

  private static Catalog catalog(String ns) {
    String yaml =
        """
        platform: Demo Platform
        metadata:
          domain: demo.capstan.dev
          partOf: demo
        installedCheck:
          namespace: NS
          deployment: api
        components:
          - {name: api, namespace: NS, deployment: api, container: api, repository: demo/api, built: true}
          - {name: worker, namespace: NS, deployment: worker, container: worker, repository: demo/worker, built: true}
          - {name: sidecar, namespace: NS, deployment: worker, container: worker, envVar: SIDECAR_IMAGE, repository: demo/sidecar, built: true}
          - {name: frontend, namespace: NS, deployment: frontend, container: frontend, repository: demo/frontend, built: true}
        """
            .replace("NS", ns);
    return Catalog.load(yaml.getBytes(UTF_8), "demo-catalog.yaml");
  }

  private static PlatformRelease manifest(Catalog catalog, String body) {
    String yaml =
        "apiVersion: capstan.dev/v1alpha1\nkind: PlatformRelease\nversion: v1.1.0\n"
            + "registry: registry.example\n"
            + body;
    return PlatformReleases.parse(yaml.getBytes(UTF_8), "platform-manifest.yaml", catalog);
  }

  private static void install(Cluster cluster, String ns) throws ApiException {
    AppsV1Api apps = cluster.apps;
    for (String name : List.of("api", "worker", "frontend")) {
      V1Container container =
          new V1Container().name(name).image("registry.example/demo/" + name + ":" + OLD);
      if (name.equals("worker")) {
        container.env(
            List.of(
                new V1EnvVar().name("LOG").value("debug"),
                new V1EnvVar()
                    .name("SIDECAR_IMAGE")
                    .value("registry.example/demo/sidecar:" + OLD)));
      }
      apps.createNamespacedDeployment(
              ns,
              new V1Deployment()
                  .metadata(new V1ObjectMeta().name(name))
                  .spec(
                      new V1DeploymentSpec()
                          .replicas(2)
                          .selector(new V1LabelSelector().matchLabels(Map.of("app", name)))
                          .template(
                              new V1PodTemplateSpec()
                                  .metadata(new V1ObjectMeta().labels(Map.of("app", name)))
                                  .spec(new V1PodSpec().containers(List.of(container))))))
          .execute();
    }
    for (String name : List.of("api", "worker", "frontend")) {
      Await.until(
          "deployment " + name + " to roll out",
          Duration.ofSeconds(60),
          () -> apps.readNamespacedDeployment(name, ns).execute(),
          d -> RolloutStatus.of(d).state() == RolloutStatus.State.COMPLETE);
    }
  }

  /** Options that wait by watch: a poll would call the sleeper, which fails the test. */
  private static ApplyOptions watching(KubernetesPlatformCluster cluster) {
    return ApplyOptions.defaults()
        .withTimeout(Duration.ofMinutes(5))
        .withWaiter(cluster.rolloutWaiter())
        .withPollInterval(Duration.ofHours(1))
        .withSleeper(
            d -> {
              throw new AssertionError("the update polled (slept " + d + ")");
            });
  }

  private static UpdatePlan plan(
      KubernetesPlatformCluster cluster, Catalog catalog, PlatformRelease m) {
    return UpdatePlanner.plan(
        cluster.inventory(UpdatePlanner.query(catalog, m)), m, catalog, Selection.defaults());
  }

  @Test
  void anUpdatePatchesOnlyChangedImagesAndWaitsForTheRolloutsByWatch(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    install(cluster, ns);
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(cluster.kube);
    Catalog catalog = catalog(ns);
    PlatformRelease release =
        manifest(
            catalog,
            """
            components:
              - {name: api, repository: demo/api, tag: v1.1.0}
              - {name: worker, repository: demo/worker, tag: v1.0.0}
              - {name: sidecar, repository: demo/sidecar, tag: v1.1.0}
              - {name: frontend, repository: demo/frontend, tag: v1.0.0}
            """);

    cluster.requests().reset();
    UpdatePlan plan = plan(platform, catalog, release);

    assertThat(cluster.requests().counts())
        .containsExactly(Map.entry("LIST deployments", 1L), Map.entry("LIST pods", 1L));
    assertThat(plan.rows())
        .extracting(PlanRow::component, PlanRow::action)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("api", PlanAction.UPDATE),
            org.assertj.core.groups.Tuple.tuple("worker", PlanAction.UNCHANGED),
            org.assertj.core.groups.Tuple.tuple("sidecar", PlanAction.UPDATE),
            org.assertj.core.groups.Tuple.tuple("frontend", PlanAction.UNCHANGED));
    assertThat(plan.installedVersion()).isEqualTo(OLD);

    cluster.requests().reset();
    UpdateResult result = UpdateApplier.apply(platform, plan, watching(platform));

    assertThat(result.failed()).isFalse();
    assertThat(result.workloads())
        .extracting(r -> r.workload().deployment(), WorkloadResult::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("api", WorkloadStatus.UPDATED),
            org.assertj.core.groups.Tuple.tuple("worker", WorkloadStatus.UPDATED));
    assertThat(cluster.writeLog())
        .containsExactly("PATCH deployments " + ns + "/api", "PATCH deployments " + ns + "/worker");
    assertThat(cluster.requests().count("WATCH deployments")).isGreaterThanOrEqualTo(2);
    assertThat(cluster.requests().count("GET deployments")).isEqualTo(2); // the applier's reads
    V1Deployment worker = cluster.apps.readNamespacedDeployment("worker", ns).execute();
    V1Container c = worker.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("registry.example/demo/worker:" + OLD);
    assertThat(c.getEnv())
        .extracting(V1EnvVar::getName, V1EnvVar::getValue)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("LOG", "debug"),
            org.assertj.core.groups.Tuple.tuple(
                "SIDECAR_IMAGE", "registry.example/demo/sidecar:v1.1.0"));
    assertThat(RolloutStatus.of(worker).state()).isEqualTo(RolloutStatus.State.COMPLETE);
    assertThat(cluster.image(ns, "api")).isEqualTo("registry.example/demo/api:v1.1.0");
    assertThat(
            cluster.fieldsOwnedBy(
                KubernetesPlatformCluster.FIELD_MANAGER, "apps", "v1", "deployments", ns, "api"))
        .contains("f:image");
  }

  @Test
  void aNeverReadyImageFailsFastAndTheTouchedWorkloadsAreRolledBackInReverseOrder(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    install(cluster, ns);
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(cluster.kube);
    Catalog catalog = catalog(ns);
    PlatformRelease release =
        manifest(
            catalog,
            """
            components:
              - {name: api, repository: demo/api, tag: v1.1.0}
              - {name: worker, repository: registry.invalid/never-ready, tag: "1"}
              - {name: frontend, repository: demo/frontend, tag: v1.1.0}
            """);
    UpdatePlan plan = plan(platform, catalog, release);

    cluster.requests().reset();
    UpdateResult result = UpdateApplier.apply(platform, plan, watching(platform));

    assertThat(result.failed()).isTrue();
    assertThat(result.workloads())
        .extracting(r -> r.workload().deployment(), WorkloadResult::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("api", WorkloadStatus.ROLLED_BACK),
            org.assertj.core.groups.Tuple.tuple("worker", WorkloadStatus.ROLLED_BACK),
            org.assertj.core.groups.Tuple.tuple("frontend", WorkloadStatus.NOT_ATTEMPTED));
    assertThat(result.workloads().get(1).error())
        .startsWith("rollout did not complete within 5m0s: ImagePullBackOff: pod worker-")
        .contains(" container worker");
    assertThat(result.workloads().get(0).error()).isEmpty();
    assertThat(cluster.writeLog())
        .containsExactly(
            "PATCH deployments " + ns + "/api",
            "PATCH deployments " + ns + "/worker",
            "PATCH deployments " + ns + "/worker",
            "PATCH deployments " + ns + "/api");
    for (String name : List.of("api", "worker", "frontend")) {
      V1Deployment d = cluster.apps.readNamespacedDeployment(name, ns).execute();
      assertThat(d.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
          .isEqualTo("registry.example/demo/" + name + ":" + OLD);
      assertThat(RolloutStatus.of(d).state()).isEqualTo(RolloutStatus.State.COMPLETE);
    }
  }

  @Test
  void aCrdBundleIsAppliedAndEstablishedBeforeAnyImageIsPatched(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    install(cluster, ns);
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(cluster.kube);
    Catalog catalog = catalog(ns);
    String group = ns + ".demo.capstan.dev";
    String crd = "widgets." + group;
    PlatformRelease release =
        manifest(
            catalog,
            "crdChange: true\ncrds: |\n"
                + "  apiVersion: apiextensions.k8s.io/v1\n"
                + "  kind: CustomResourceDefinition\n"
                + "  metadata:\n"
                + "    name: "
                + crd
                + "\n"
                + "  spec:\n"
                + "    group: "
                + group
                + "\n"
                + "    names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n"
                + "    scope: Namespaced\n"
                + "    versions:\n"
                + "      - name: v1\n"
                + "        served: true\n"
                + "        storage: true\n"
                + "        schema:\n"
                + "          openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}\n"
                + "components:\n"
                + "  - {name: api, repository: demo/api, tag: v1.1.0}\n");
    UpdatePlan plan = plan(platform, catalog, release);
    assertThat(plan.applyCrds()).isTrue();

    cluster.requests().reset();
    UpdateResult result = UpdateApplier.apply(platform, plan, watching(platform));

    try {
      assertThat(result.failed()).isFalse();
      assertThat(result.crds()).containsExactly(CrdResult.of(crd, "created"));
      assertThat(cluster.writeLog())
          .containsExactly(
              "PATCH customresourcedefinitions " + crd, "PATCH deployments " + ns + "/api");
      List<String> log = cluster.requests().log();
      assertThat(log.indexOf("WATCH customresourcedefinitions"))
          .isBetween(
              log.indexOf("PATCH customresourcedefinitions " + crd),
              log.indexOf("PATCH deployments " + ns + "/api"));
      V1CustomResourceDefinition live =
          new ApiextensionsV1Api(cluster.client()).readCustomResourceDefinition(crd).execute();
      assertThat(live.getStatus().getConditions())
          .anySatisfy(
              c -> {
                assertThat(c.getType()).isEqualTo("Established");
                assertThat(c.getStatus()).isEqualTo("True");
              });
      assertThat(platform.crd(crd)).isPresent();
    } finally {
      new ApiextensionsV1Api(cluster.client()).deleteCustomResourceDefinition(crd).execute();
    }
  }

  /** A Widget CRD of the test's own group, with the given {@code versions} flow sequence. */
  private static String widgetCrd(String group, String versions) {
    return "  apiVersion: apiextensions.k8s.io/v1\n"
        + "  kind: CustomResourceDefinition\n"
        + "  metadata: {name: widgets."
        + group
        + "}\n"
        + "  spec:\n"
        + "    group: "
        + group
        + "\n"
        + "    names: {kind: Widget, plural: widgets}\n"
        + "    scope: Namespaced\n"
        + "    versions: "
        + versions
        + "\n";
  }

  private static String widgetVersion(String name, boolean served, boolean storage) {
    return "{name: "
        + name
        + ", served: "
        + served
        + ", storage: "
        + storage
        + ", schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object,"
        + " properties: {size: {type: integer}}}}}}}";
  }

  private static PlatformRelease crdRelease(Catalog catalog, String bundle) {
    return manifest(
        catalog,
        "crdChange: true\ncrds: |\n"
            + bundle
            + "components:\n  - {name: api, repository: demo/api, tag: v1.0.0}\n");
  }

  private static UpdatePlan plan(
      KubernetesPlatformCluster cluster, Catalog catalog, PlatformRelease m, Selection selection) {
    return UpdatePlanner.plan(
        cluster.inventory(UpdatePlanner.query(catalog, m)), m, catalog, selection);
  }

  @Test
  void aBundleThatDropsAStoredVersionIsBlockedWithoutAWriteAndAppliedWithTheOption(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    install(cluster, ns);
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(cluster.kube);
    Catalog catalog = catalog(ns);
    String group = ns + ".gate.capstan.dev";
    String crd = "widgets." + group;
    PlatformRelease v1Only =
        crdRelease(catalog, widgetCrd(group, "[" + widgetVersion("v1", true, true) + "]"));
    PlatformRelease v2Only =
        crdRelease(catalog, widgetCrd(group, "[" + widgetVersion("v2", true, true) + "]"));
    try {
      assertThat(
              UpdateApplier.apply(platform, plan(platform, catalog, v1Only), watching(platform))
                  .crds())
          .containsExactly(CrdResult.of(crd, "created"));
      DynamicKubernetesApi widgets =
          new DynamicKubernetesApi(group, "v1", "widgets", cluster.client());
      for (String name : List.of("small", "large")) {
        JsonObject raw = new JsonObject();
        raw.addProperty("apiVersion", group + "/v1");
        raw.addProperty("kind", "Widget");
        JsonObject metadata = new JsonObject();
        metadata.addProperty("name", name);
        metadata.addProperty("namespace", ns);
        raw.add("metadata", metadata);
        Await.until(
            "widget " + name + " to be stored at v1",
            Duration.ofSeconds(30),
            () -> widgets.create(new DynamicKubernetesObject(raw)),
            r -> r.isSuccess());
      }

      cluster.requests().reset();
      UpdatePlan blocked = plan(platform, catalog, v2Only);

      assertThat(blocked.crdPreview())
          .containsExactly(
              CrdResult.withReason(
                  crd,
                  CrdResult.BLOCKED,
                  "version v1: stored version removed (status.storedVersions lists it, so objects"
                      + " may still be stored at v1 and could no longer be read)"));
      assertThat(
              catchThrowableOfType(
                  UpdateBlockedException.class,
                  () -> UpdateApplier.apply(platform, blocked, watching(platform))))
          .hasMessage("update blocked for CRD " + crd + "; see plan reasons");
      assertThat(cluster.writeLog()).isEmpty();
      assertThat(cluster.requests().counts())
          .containsExactly(
              Map.entry("DRYRUN-PATCH customresourcedefinitions", 1L),
              Map.entry("LIST customresourcedefinitions", 1L),
              Map.entry("LIST deployments", 1L),
              Map.entry("LIST pods", 1L));
      assertThat(widgets.list(ns).getObject().getItems()).hasSize(2);

      UpdatePlan allowed =
          plan(platform, catalog, v2Only, Selection.defaults().withAllowUnsafeCrdChanges(true));
      assertThat(allowed.crdPreview()).extracting(CrdResult::action).containsExactly("update");
      cluster.requests().reset();
      UpdateResult result = UpdateApplier.apply(platform, allowed, watching(platform));

      assertThat(result.failed()).isFalse();
      assertThat(result.crds()).containsExactly(CrdResult.of(crd, "configured"));
      assertThat(cluster.writeLog())
          .containsExactly(
              "PATCH customresourcedefinitions " + crd,
              "PATCH customresourcedefinitions/status " + crd,
              "PATCH customresourcedefinitions " + crd);
      V1CustomResourceDefinition live =
          new ApiextensionsV1Api(cluster.client()).readCustomResourceDefinition(crd).execute();
      assertThat(live.getSpec().getVersions()).extracting(v -> v.getName()).containsExactly("v2");
      assertThat(live.getStatus().getStoredVersions()).containsExactly("v2");
    } finally {
      new ApiextensionsV1Api(cluster.client()).deleteCustomResourceDefinition(crd).execute();
    }
  }

  @Test
  void theSameCrdBundleTwiceIsSkippedTheSecondTimeWithoutAWrite(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    install(cluster, ns);
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(cluster.kube);
    Catalog catalog = catalog(ns);
    String group = ns + ".twice.capstan.dev";
    String gadgets =
        widgetCrd(group, "[" + widgetVersion("v1", true, true) + "]")
            .replace("widgets", "gadgets")
            .replace("Widget", "Gadget");
    String bundle =
        widgetCrd(
                group,
                "["
                    + widgetVersion("v1", true, false)
                    + ", "
                    + widgetVersion("v2", true, true)
                    + "]")
            + "  ---\n"
            + gadgets;
    PlatformRelease release = crdRelease(catalog, bundle);
    List<String> names = List.of("widgets." + group, "gadgets." + group);
    try {
      UpdatePlan first = plan(platform, catalog, release);
      assertThat(first.crdPreview())
          .containsExactly(
              CrdResult.of(names.get(0), "create"), CrdResult.of(names.get(1), "create"));
      assertThat(UpdateApplier.apply(platform, first, watching(platform)).failed()).isFalse();

      cluster.requests().reset();
      UpdatePlan second = plan(platform, catalog, release);
      UpdateResult result = UpdateApplier.apply(platform, second, watching(platform));

      assertThat(second.crdPreview())
          .containsExactly(
              CrdResult.of(names.get(0), CrdResult.SKIPPED),
              CrdResult.of(names.get(1), CrdResult.SKIPPED));
      assertThat(second.applyCrds()).isFalse();
      assertThat(second.needsApply()).isFalse();
      assertThat(result.crds()).isEmpty();
      assertThat(cluster.writeLog()).isEmpty();
      assertThat(cluster.requests().counts())
          .containsExactly(
              Map.entry("DRYRUN-PATCH customresourcedefinitions", 2L),
              Map.entry("LIST customresourcedefinitions", 1L),
              Map.entry("LIST deployments", 1L),
              Map.entry("LIST pods", 1L));
    } finally {
      for (String name : names) {
        new ApiextensionsV1Api(cluster.client()).deleteCustomResourceDefinition(name).execute();
      }
    }
  }

  @Test
  void theWatchingWaiterTimesOutWithTheLastStatusSeen(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    cluster
        .apps
        .createNamespacedDeployment(
            ns,
            new V1Deployment()
                .metadata(new V1ObjectMeta().name("paused"))
                .spec(
                    new V1DeploymentSpec()
                        .paused(true)
                        .replicas(2)
                        .selector(new V1LabelSelector().matchLabels(Map.of("app", "paused")))
                        .template(
                            new V1PodTemplateSpec()
                                .metadata(new V1ObjectMeta().labels(Map.of("app", "paused")))
                                .spec(
                                    new V1PodSpec()
                                        .containers(
                                            List.of(
                                                new V1Container()
                                                    .name("paused")
                                                    .image("registry.example/paused:1")))))))
        .execute();
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(cluster.kube);

    UpdateException timedOut =
        catchThrowableOfType(
            UpdateException.class,
            () -> platform.rolloutWaiter().await(Workload.of(ns, "paused"), Duration.ofSeconds(2)));

    assertThat(timedOut)
        .hasMessage(
            "timed out; last status: Waiting for deployment \"paused\" rollout to finish: 0 out of 2"
                + " new replicas have been updated...");
    assertThat(platform.deployment(Workload.of(ns, "missing"))).isEmpty();
    assertThat(platform.rolloutStatus(Workload.of(ns, "missing"))).isEmpty();
    assertThat(platform.crd("nothing.example.com")).isEmpty();
  }
}
