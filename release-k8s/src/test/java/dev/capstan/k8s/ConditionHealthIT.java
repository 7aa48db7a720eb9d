package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1LoadBalancerIngress;
import io.kubernetes.client.openapi.models.V1LoadBalancerStatus;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceStatus;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Health that explains and fails fast, on the real control plane: a custom resource's {@code Ready}
 * condition (written by the test as its controller, through the status subresource) is reported
 * with its reason while waiting and on time-out, {@code Stalled=True} and a deletion before it was
 * ready fail at once; an APIService whose backend never answers fails with its {@code
 * FailedDiscoveryCheck} within one re-check of the aggregator, while one whose backend Deployment
 * becomes ready after it casts; a LoadBalancer Service without an address waits (and says so) by
 * default and does not when told. The APIServices point at a Service in namespace {@code
 * capstan-loopback} of type ExternalName for {@code localhost}: the aggregator dials
 * localhost:PORT, where the test's own HTTPS responder answers or nothing listens.
 */
@ControlPlaneTest
class ConditionHealthIT {
  private static final Duration PATIENT = Duration.ofMinutes(5);
  private static final String LOOPBACK = "capstan-loopback";

  @TempDir Path dir;

  /** A CRD of namespaced Widgets with a status subresource, in a group of the test's own. */
  private static String widgetGroup(Cluster cluster, String ns) throws ApiException {
    String group = ns + ".health.capstan.dev";
    Widgets.createCrd(cluster, group, ns, PATIENT);
    return group;
  }

  private static DynamicKubernetesApi widgets(Cluster cluster, String group) {
    return Widgets.api(cluster, group);
  }

  private static void deleteCrd(Cluster cluster, String group) {
    Widgets.deleteCrd(cluster, group);
  }

  /**
   * Applies the Widget {@code blue} through the adapter, then writes its status as its controller.
   */
  private static ResourceRef blue(Cluster cluster, String ns, String group, String conditions)
      throws ApiException {
    Manifest widget =
        Manifest.of(
            Map.of(
                "apiVersion",
                group + "/v1",
                "kind",
                "Widget",
                "metadata",
                Map.of("name", "blue", "namespace", ns),
                "spec",
                Map.of("size", 2)));
    cluster.orchestrator.apply(
        widget,
        OwnershipStamp.of(new ReleaseIdentity(ns, "app", "id-1"), 1, ContentHash.of(widget)));
    status(cluster, ns, group, conditions);
    return widget.ref();
  }

  private static void status(Cluster cluster, String ns, String group, String conditions)
      throws ApiException {
    DynamicKubernetesApi api = widgets(cluster, group);
    DynamicKubernetesObject live = api.get(ns, "blue").throwsApiException().getObject();
    JsonObject status =
        JsonParser.parseString("{\"observedGeneration\":1,\"conditions\":" + conditions + "}")
            .getAsJsonObject();
    live.getRaw().add("status", status);
    api.updateStatus(live, o -> o.getRaw().get("status")).throwsApiException();
  }

  private static String ready(String status, String reason, String message) {
    return "[{\"type\":\"Ready\",\"status\":\""
        + status
        + "\",\"reason\":\""
        + reason
        + "\",\"message\":\""
        + message
        + "\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]";
  }

  @Test
  void aCustomResourceNotReadyIsReportedWithItsConditionWhileWaitingAndHealthyOnceReady(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = widgetGroup(cluster, ns);
    try {
      ResourceRef ref =
          blue(cluster, ns, group, ready("False", "Provisioning", "disk 1 of 2 attached"));
      List<String> progress = new CopyOnWriteArrayList<>();

      CompletableFuture<Readiness> waiting =
          CompletableFuture.supplyAsync(
              () ->
                  cluster.orchestrator.awaitReady(
                      List.of(ref),
                      ReadinessWait.of(PATIENT).withProgress(p -> progress.add(p.describe()))));
      Await.until("a progress line", PATIENT, () -> progress.isEmpty() ? null : progress.get(0));
      status(cluster, ns, group, ready("True", "Provisioned", "both disks attached"));

      assertThat(waiting.get(1, TimeUnit.MINUTES)).isEqualTo(Readiness.ready());
      assertThat(progress.get(0))
          .matches(
              "still waiting after [0-9.]+s for 1 of 1 object\\(s\\): Widget "
                  + ns
                  + "/blue: Ready=False: Provisioning: disk 1 of 2 attached");
    } finally {
      deleteCrd(cluster, group);
    }
  }

  @Test
  void aCustomResourceThatStaysNotReadyTimesOutNamingItsConditionAndAStalledOneFailsAtOnce(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = widgetGroup(cluster, ns);
    try {
      ResourceRef ref =
          blue(cluster, ns, group, ready("False", "Provisioning", "disk 1 of 2 attached"));

      assertThat(cluster.orchestrator.awaitReady(List.of(ref), Duration.ofSeconds(3)).describe())
          .isEqualTo(
              "not ready after 3s: Widget "
                  + ns
                  + "/blue: Ready=False: Provisioning: disk 1 of 2 attached");

      status(
          cluster,
          ns,
          group,
          "[{\"type\":\"Stalled\",\"status\":\"True\",\"reason\":\"InvalidSpec\","
              + "\"message\":\"size must be even\"}]");
      assertThat(cluster.orchestrator.awaitReady(List.of(ref), PATIENT))
          .isEqualTo(
              Readiness.failed(
                  ref, "Widget " + ns + "/blue: Stalled=True: InvalidSpec: size must be even"));
    } finally {
      deleteCrd(cluster, group);
    }
  }

  @Test
  void aCustomResourceDeletedBeforeItWasReadyFailsTheWaitAtOnceNamingIt(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = widgetGroup(cluster, ns);
    try {
      ResourceRef ref =
          blue(cluster, ns, group, ready("False", "Provisioning", "disk 1 of 2 attached"));
      List<String> progress = new CopyOnWriteArrayList<>();
      CompletableFuture<Readiness> waiting =
          CompletableFuture.supplyAsync(
              () ->
                  cluster.orchestrator.awaitReady(
                      List.of(ref),
                      ReadinessWait.of(PATIENT).withProgress(p -> progress.add(p.describe()))));
      Await.until("the wait under way", PATIENT, () -> progress.isEmpty() ? null : true);

      widgets(cluster, group).delete(ns, "blue").throwsApiException();

      assertThat(waiting.get(1, TimeUnit.MINUTES))
          .isEqualTo(
              Readiness.failed(
                  ref,
                  "Widget "
                      + ns
                      + "/blue: deleted before it was healthy; last seen: Ready=False:"
                      + " Provisioning: disk 1 of 2 attached"));
    } finally {
      deleteCrd(cluster, group);
    }
  }

  // ------------------------------------------------------------------ APIServices

  private static void loopbackNamespace(Cluster cluster) throws ApiException {
    try {
      cluster
          .core
          .createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(LOOPBACK)))
          .execute();
    } catch (ApiException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
  }

  /**
   * The backend Service (ExternalName localhost) and the APIService of {@code group} at {@code
   * port}.
   */
  private static List<Manifest> aggregatedApi(String ns, String group, int port) {
    Manifest service =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Service",
                "metadata",
                Map.of("name", ns, "namespace", LOOPBACK),
                "spec",
                Map.of("type", "ExternalName", "externalName", "localhost")));
    Manifest apiService =
        Manifest.of(
            Map.of(
                "apiVersion",
                "apiregistration.k8s.io/v1",
                "kind",
                "APIService",
                "metadata",
                Map.of("name", "v1." + group),
                "spec",
                Map.of(
                    "group",
                    group,
                    "version",
                    "v1",
                    "groupPriorityMinimum",
                    100,
                    "versionPriority",
                    10,
                    "insecureSkipTLSVerify",
                    true,
                    "service",
                    Map.of("namespace", LOOPBACK, "name", ns, "port", port))));
    return List.of(service, apiService);
  }

  private static void deleteAggregatedApi(Cluster cluster, String ns, String group) {
    new DynamicKubernetesApi("apiregistration.k8s.io", "v1", "apiservices", cluster.client())
        .delete("v1." + group);
    new DynamicKubernetesApi("", "v1", "services", cluster.client()).delete(LOOPBACK, ns);
  }

  @Test
  void anApiServiceWhoseBackendNeverAnswersFailsWithinOneRecheckWithItsReason(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = ns + ".agg.capstan.dev";
    int port = LoopbackHttps.freePort(); // nothing listens there
    loopbackNamespace(cluster);
    Payloads payloads = Payloads.of(aggregatedApi(ns, group, port).toArray(Manifest[]::new));
    ReleaseSpec spec =
        ReleaseSpec.of(ns, "agg", payloads)
            .withOptions(ReleaseOptions.defaults().withTimeout(PATIENT));
    ReleaseController controller = cluster.controller().build();
    try {
      long started = System.nanoTime();
      CastFailedException failed =
          catchThrowableOfType(CastFailedException.class, () -> controller.cast(spec, payloads));
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      System.out.println(
          "the unanswered APIService failed the cast after "
              + dev.capstan.common.Durations.format(took));

      assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
      assertThat(failed.result().release().failure())
          .startsWith(
              "verify failed: apiregistration.k8s.io/APIService//v1."
                  + group
                  + " is not ready: APIService v1."
                  + group
                  + ": Available=False: FailedDiscoveryCheck: failing or missing response from"
                  + " https://localhost:"
                  + port
                  + "/apis/"
                  + group
                  + "/v1: ")
          .contains("connection refused")
          .endsWith(
              "; unchanged for 36s once the rest of the wave was healthy (the aggregator"
                  + " re-checks an APIService at least every 30s)");
      // it failed on its condition, not by waiting out the 5 minutes
      assertThat(took).isLessThan(PATIENT);
      assertThat(took).isGreaterThanOrEqualTo(WaveHealth.API_SERVICE_PATIENCE);
    } finally {
      deleteAggregatedApi(cluster, ns, group);
    }
  }

  @Test
  void anApiServiceWhoseBackendDeploymentBecomesReadyAfterItIsCreatedCasts(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = ns + ".agg.capstan.dev";
    int port = LoopbackHttps.freePort();
    loopbackNamespace(cluster);
    Manifest backend =
        Manifest.of(
            Map.of(
                "apiVersion",
                "apps/v1",
                "kind",
                "Deployment",
                "metadata",
                Map.of("name", "backend", "namespace", ns),
                "spec",
                Map.of(
                    "replicas",
                    1,
                    "selector",
                    Map.of("matchLabels", Map.of("app", "backend")),
                    "template",
                    Map.of(
                        "metadata",
                        Map.of("labels", Map.of("app", "backend")),
                        "spec",
                        Map.of(
                            "containers",
                            List.of(
                                Map.of(
                                    "name", "backend", "image", "registry.example/backend:1")))))));
    List<Manifest> objects = new java.util.ArrayList<>(aggregatedApi(ns, group, port));
    objects.add(backend);
    Payloads payloads = Payloads.of(objects.toArray(Manifest[]::new));
    ReleaseSpec spec =
        ReleaseSpec.of(ns, "agg", payloads)
            .withOptions(ReleaseOptions.defaults().withTimeout(PATIENT));
    ReleaseController controller = cluster.controller().build();
    // the backend answers once its Deployment is available, as metrics-server's pod does
    LoopbackHttps https = LoopbackHttps.on(port, group, "v1");
    CompletableFuture<Void> answering =
        CompletableFuture.runAsync(
            () -> {
              Await.until(
                  "the backend Deployment available",
                  PATIENT,
                  () -> {
                    V1Deployment d = cluster.apps.readNamespacedDeployment("backend", ns).execute();
                    Integer available =
                        d.getStatus() == null ? null : d.getStatus().getAvailableReplicas();
                    return (available != null && available > 0) ? true : null;
                  });
              https.start(dir);
            });
    try {
      assertThat(controller.cast(spec, payloads).release().status())
          .isEqualTo(ReleaseStatus.DEPLOYED);
      answering.get(1, TimeUnit.MINUTES);
    } finally {
      https.close();
      deleteAggregatedApi(cluster, ns, group);
    }
  }

  // ------------------------------------------------------------------ LoadBalancer Services

  private static Payloads edge(String ns) {
    return Payloads.of(
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Service",
                "metadata",
                Map.of("name", "edge", "namespace", ns),
                "spec",
                Map.of(
                    "type",
                    "LoadBalancer",
                    "selector",
                    Map.of("app", "edge"),
                    "ports",
                    List.of(Map.of("name", "http", "port", 80))))));
  }

  @Test
  void aLoadBalancerServiceWithoutAnAddressWaitsSayingSoByDefaultAndNotWhenTheOptionIsOff(
      ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    List<String> progress = new CopyOnWriteArrayList<>();
    ReleaseController reporting =
        cluster
            .controller()
            .listener(
                e -> {
                  if (e instanceof dev.capstan.release.event.ReleaseEvent.StillWaiting w) {
                    progress.add(w.describe());
                  }
                })
            .build();
    Payloads payloads = edge(ns);
    // no load balancer controller runs here: the address never comes
    ReleaseSpec waiting =
        ReleaseSpec.of(ns, "edge", payloads)
            .withOptions(ReleaseOptions.defaults().withTimeout(Duration.ofSeconds(6)));

    CastFailedException failed =
        catchThrowableOfType(CastFailedException.class, () -> reporting.cast(waiting, payloads));

    String advice =
        String.join(
            " ",
            "a cluster without a load balancer controller never gives a Service of type",
            "LoadBalancer an address: cast with waitForLoadBalancer off (the CLI's",
            "--no-wait-for-load-balancer) to count it healthy once it exists; if what is pending",
            "only needs longer, cast again with a longer timeout (the CLI's --timeout): the next",
            "cast finishes this revision");
    assertThat(failed.result().release().failure())
        .isEqualTo(
            "verify failed: not ready after 6s: Service "
                + ns
                + "/edge: type LoadBalancer has no address yet (status.loadBalancer.ingress); "
                + advice);
    // a wait longer than 5s reports at least once before it times out
    assertThat(progress)
        .isNotEmpty()
        .allMatch(
            line ->
                line.matches(
                    "still waiting after [0-9.]+s for 1 of 1 object\\(s\\): Service "
                        + ns
                        + "/edge: type LoadBalancer has no address yet"
                        + " \\(status.loadBalancer.ingress\\)"));

    ReleaseSpec notWaiting =
        waiting.withOptions(waiting.options().withWaitForLoadBalancer(false).withTimeout(PATIENT));
    cluster.requests().reset();
    assertThat(controller.cast(notWaiting, payloads).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.requests().count("LIST services")).isEqualTo(2); // observe, then health
    assertThat(cluster.requests().count("WATCH services")).isZero();
  }

  @Test
  void aLoadBalancerServiceIsHealthyOnceItsAddressIsWritten(ControlPlane plane, TestNamespace tns)
      throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Manifest service = edge(ns).specs().get(0) instanceof Manifest m ? m : null;
    assertThat(service).isNotNull();
    cluster.orchestrator.apply(
        service,
        OwnershipStamp.of(new ReleaseIdentity(ns, "app", "id-1"), 1, ContentHash.of(service)));
    ResourceRef ref = ResourceRef.of(Kind.SERVICE, ns, "edge");
    List<String> progress = new CopyOnWriteArrayList<>();
    CompletableFuture<Readiness> waiting =
        CompletableFuture.supplyAsync(
            () ->
                cluster.orchestrator.awaitReady(
                    List.of(ref),
                    ReadinessWait.of(PATIENT).withProgress(p -> progress.add(p.describe()))));
    Await.until("the wait under way", PATIENT, () -> progress.isEmpty() ? null : true);

    V1Service live = cluster.core.readNamespacedService("edge", ns).execute();
    live.status(
        new V1ServiceStatus()
            .loadBalancer(
                new V1LoadBalancerStatus()
                    .ingress(List.of(new V1LoadBalancerIngress().ip("127.0.0.1")))));
    cluster.core.replaceNamespacedServiceStatus("edge", ns, live).execute();

    assertThat(waiting.get(1, TimeUnit.MINUTES)).isEqualTo(Readiness.ready());
  }
}
