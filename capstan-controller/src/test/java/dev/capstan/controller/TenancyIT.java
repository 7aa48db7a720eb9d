package dev.capstan.controller;

import static dev.capstan.controller.ItReleases.SOON;
import static dev.capstan.controller.ItReleases.apply;
import static dev.capstan.controller.ItReleases.awaitReady;
import static dev.capstan.controller.ItReleases.configMap;
import static dev.capstan.controller.ItReleases.configMapIn;
import static dev.capstan.controller.ItReleases.deployment;
import static dev.capstan.controller.ItReleases.existing;
import static dev.capstan.controller.ItReleases.message;
import static dev.capstan.controller.ItReleases.read;
import static dev.capstan.controller.ItReleases.release;
import static dev.capstan.controller.ItReleases.spec;
import static dev.capstan.controller.ItReleases.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A controller that runs exactly as the shipped manifests make it: {@code deploy/} cast with
 * Capstan, the controller in this JVM with a token of its service account (TokenRequest) in a
 * kubeconfig of its own, and the tenancy flags of the shipped Deployment. Each tenant account and
 * its roles are made by the test. What is asserted exactly: the statuses, what exists and what does
 * not, the requests the controller sent; how soon is bounded by generous timeouts only.
 */
@ControlPlaneTest
class TenancyIT {
  /** The label of the Releases this class's controller reconciles (and no other one does). */
  private static final String SHARD = "capstan-it-shard";

  private static final Map<String, String> MINE = Map.of(SHARD, "tenancy");

  private static @Nullable ReleaseResourceController controller;
  private static @Nullable KubeClients clients;
  private static final List<String> outcomes = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void castTheShippedManifestsAndRunTheControllerAsItsServiceAccount(ControlPlane plane)
      throws Exception {
    ItReleases.installCrd(plane);
    KubeClients asController = ShippedController.castAndLogIn(plane);
    clients = asController;
    controller =
        ReleaseResourceController.builder(asController)
            .workers(2)
            .selector(SHARD + "=tenancy")
            .identity("it-tenancy")
            .tenancy(Tenancy.open().withServiceAccountRequired(true).withCrossNamespaceRefs(false))
            .endpoints(
                new java.net.InetSocketAddress(
                    java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0))
            .listener((release, outcome) -> outcomes.add(release + ": " + outcome))
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

  private static Map<String, Object> clusterAdminBinding(String name, String ns, String account) {
    return Map.of(
        "apiVersion",
        "rbac.authorization.k8s.io/v1",
        "kind",
        "ClusterRoleBinding",
        "metadata",
        Map.of("name", name),
        "roleRef",
        Map.of(
            "apiGroup",
            "rbac.authorization.k8s.io",
            "kind",
            "ClusterRole",
            "name",
            "cluster-admin"),
        "subjects",
        List.of(Map.of("kind", "ServiceAccount", "name", account, "namespace", ns)));
  }

  /** The requests counted since the last reset, background ones too. */
  private static Map<String, Long> requests() {
    return ShippedController.requests(java.util.Objects.requireNonNull(clients));
  }

  private static long records(ControlPlane plane, String ns) throws ApiException {
    return new CoreV1Api(plane.client())
        .listNamespacedSecret(ns)
        .fieldSelector("type=capstan.dev/release.v1")
        .execute()
        .getItems()
        .size();
  }

  private static long leases(ControlPlane plane, String ns) throws ApiException {
    return new CoordinationV1Api(plane.client())
        .listNamespacedLease(ns)
        .execute()
        .getItems()
        .size();
  }

  /** The Events of a Release with {@code reason}. */
  private static List<CoreV1Event> events(ControlPlane plane, String ns, String name, String reason)
      throws ApiException {
    return new CoreV1Api(plane.client())
        .listNamespacedEvent(ns)
        .fieldSelector("involvedObject.name=" + name + ",reason=" + reason)
        .execute()
        .getItems();
  }

  /** The events of {@link #events}, once there is one: an Event is written after the status. */
  private static List<CoreV1Event> awaitEvents(
      ControlPlane plane, String ns, String name, String reason) {
    return Await.until(
        "a " + reason + " event of " + ns + "/" + name,
        SOON,
        () -> {
          List<CoreV1Event> e = events(plane, ns, name, reason);
          return e.isEmpty() ? null : e;
        });
  }

  // --- tests ---------------------------------------------------------------------------------

  @Test
  void aTenantsReleaseGrantingItselfClusterAdminIsStalledNamingTheObjectAndNothingIsWritten(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String user = ShippedController.tenant(plane, ns, "tenant", "edit");
    String binding = ns + "-tenant-admin";
    java.util.Objects.requireNonNull(clients).requests().reset();

    apply(
        plane,
        ns,
        release(
            "escalate",
            MINE,
            spec(
                "serviceAccountName",
                "tenant",
                "manifests",
                List.of(clusterAdminBinding(binding, ns, "tenant")))));

    ReleaseResource stalled = awaitReady(plane, ns, "escalate", "False", "Forbidden");
    assertThat(message(stalled))
        .isEqualTo(
            "the release is cast as "
                + user
                + ", which may not: list ClusterRoleBinding failed (HTTP 403):"
                + " clusterrolebindings.rbac.authorization.k8s.io \""
                + binding
                + "\" is forbidden: User \""
                + user
                + "\" cannot list resource \"clusterrolebindings\" in API group"
                + " \"rbac.authorization.k8s.io\" at the cluster scope (for"
                + " rbac.authorization.k8s.io/ClusterRoleBinding//"
                + binding
                + "); nothing was written");
    assertThat(stalled.condition("Stalled")).extracting(c -> c.get("status")).isEqualTo("True");
    // the Event is written after the status the wait above saw: wait for it, then judge it
    assertThat(awaitEvents(plane, ns, "escalate", "Forbidden"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getMessage()).isEqualTo(message(stalled));
            });
    // nothing written: no binding, no record, no lease; the controller wrote only the Release,
    // its Event and the impersonated reads
    assertThat(
            new RbacAuthorizationV1Api(plane.client())
                .listClusterRoleBinding()
                .fieldSelector("metadata.name=" + binding)
                .execute()
                .getItems())
        .isEmpty();
    assertThat(records(plane, ns)).isZero();
    assertThat(leases(plane, ns)).isZero();
    assertThat(ShippedController.objectWritesIn(java.util.Objects.requireNonNull(clients), ns))
        .isEmpty();
    assertThat(
            ItReleases.kubectlExiting(plane, 1, "auth", "can-i", "*", "*", "-A", "--as=" + user)
                .strip())
        .isEqualTo("no");
  }

  @Test
  void aTenantsReleaseHoldingAnObjectInAnotherNamespaceIsStalledNamingIt(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String other = ns + "-other";
    new CoreV1Api(plane.client())
        .createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(other)))
        .execute();
    try {
      String user = ShippedController.tenant(plane, ns, "tenant", "edit");
      Map<String, Object> foreign =
          Map.of(
              "apiVersion",
              "v1",
              "kind",
              "ConfigMap",
              "metadata",
              Map.of("name", "planted", "namespace", other),
              "data",
              Map.of("value", "x"));
      java.util.Objects.requireNonNull(clients).requests().reset();

      apply(
          plane,
          ns,
          release(
              "across",
              MINE,
              spec(
                  "serviceAccountName",
                  "tenant",
                  "manifests",
                  List.of(configMap("mine", "1"), foreign))));

      ReleaseResource stalled = awaitReady(plane, ns, "across", "False", "Forbidden");
      assertThat(message(stalled))
          .startsWith("the release is cast as " + user + ", which may not: ")
          .contains("User \"" + user + "\" cannot")
          .endsWith("(for ConfigMap/" + other + "/planted); nothing was written");
      assertThat(configMapIn(plane, other, "planted")).isNull();
      assertThat(configMapIn(plane, ns, "mine")).isNull();
      assertThat(records(plane, ns)).isZero();
      assertThat(ShippedController.objectWritesIn(java.util.Objects.requireNonNull(clients), ns))
          .isEmpty();
    } finally {
      new CoreV1Api(plane.client()).deleteNamespace(other).execute();
    }
  }

  @Test
  void aTenantThatMayReadButNotWriteIsRefusedByTheAccessReviewsBeforeAnyWrite(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String user = ShippedController.tenant(plane, ns, "reader", "view");
    java.util.Objects.requireNonNull(clients).requests().reset();

    apply(
        plane,
        ns,
        release(
            "settings",
            MINE,
            spec(
                "serviceAccountName", "reader", "manifests", List.of(configMap("settings", "1")))));

    ReleaseResource stalled = awaitReady(plane, ns, "settings", "False", "Forbidden");
    assertThat(message(stalled))
        .isEqualTo(
            "the release is cast as "
                + user
                + ", which may not create configmaps in namespace "
                + ns
                + " (for ConfigMap/"
                + ns
                + "/settings); patch configmaps in namespace "
                + ns
                + " (for ConfigMap/"
                + ns
                + "/settings); nothing was written");
    Map<String, Long> requests = requests();
    assertThat(ShippedController.objectWritesIn(java.util.Objects.requireNonNull(clients), ns))
        .isEmpty();
    assertThat(requests).containsKey("CREATE selfsubjectaccessreviews");
    assertThat(configMapIn(plane, ns, "settings")).isNull();
    assertThat(records(plane, ns)).isZero();
    assertThat(leases(plane, ns)).isZero();
  }

  @Test
  void aReleaseNamingNoAccountIsRefusedAsTheDeploymentRuns(ControlPlane plane, TestNamespace tns)
      throws Exception {
    String ns = tns.name();
    apply(plane, ns, release("anonymous", MINE, spec("manifests", List.of(configMap("a", "1")))));

    ReleaseResource refused = awaitReady(plane, ns, "anonymous", "False", "InvalidSpec");
    assertThat(message(refused))
        .isEqualTo(
            "Release "
                + ns
                + "/anonymous: spec.serviceAccountName: must name a service account of namespace "
                + ns
                + ": this controller casts no Release with its own rights"
                + " (--require-service-account)");
    assertThat(refused.finalizers()).isEmpty();
  }

  @Test
  void underTheShippedRbacAReleaseGoesThroughCreateDriftChangeFailureAndDelete(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    ShippedController.tenant(plane, ns, "deployer", "edit");
    Map<String, Object> base =
        spec(
            "serviceAccountName",
            "deployer",
            "interval",
            "2s",
            "options",
            Map.of("maxHistory", 2, "timeout", "60s"),
            "manifests",
            List.of(configMap("web-settings", "blue"), deployment("web")));

    // create
    apply(plane, ns, release("web", MINE, base));
    ReleaseResource created = awaitReady(plane, ns, "web", "True", "Cast");
    assertThat(message(created)).isEqualTo("revision 1: 2 created");
    assertThat(value(configMapIn(plane, ns, "web-settings"))).isEqualTo("blue");

    // drift: repaired within the interval
    V1ConfigMap live = existing(plane, ns, "web-settings");
    new CoreV1Api(plane.client())
        .replaceNamespacedConfigMap("web-settings", ns, live.data(Map.of("value", "edited")))
        .execute();
    Await.until(
        "the drift repaired",
        SOON,
        () -> configMapIn(plane, ns, "web-settings"),
        c -> value(c).equals("blue"));
    assertThat(message(awaitReady(plane, ns, "web", "True", "Cast")))
        .isEqualTo("revision 2: 1 repaired");

    // change
    // a cast that fails at the write the server refuses: unverified (verified, the plan refuses
    // it before any write, VerifiedPlanIT)
    ItReleases.patch(
        plane,
        ns,
        "web",
        "{\"spec\":{\"options\":{\"verifyOnServer\":false},\"manifests\":["
            + json(configMap("web-settings", "green"))
            + ","
            + json(deployment("web"))
            + "]}}");
    Await.until(
        "the change cast",
        SOON,
        () -> configMapIn(plane, ns, "web-settings"),
        c -> value(c).equals("green"));
    assertThat(message(awaitReady(plane, ns, "web", "True", "Cast")))
        .isEqualTo("revision 3: 1 updated");

    // failure: a port the API server refuses, tried again and again
    Map<String, Object> service =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "Service",
            "metadata",
            Map.of("name", "web"),
            "spec",
            Map.of(
                "selector",
                Map.of("app", "web"),
                "ports",
                List.of(Map.of("name", "http", "port", 70000))));
    ItReleases.patch(
        plane,
        ns,
        "web",
        "{\"spec\":{\"manifests\":["
            + json(configMap("web-settings", "green"))
            + ","
            + json(deployment("web"))
            + ","
            + json(service)
            + "]}}");
    ReleaseResource failed = awaitReady(plane, ns, "web", "False", "CastFailed");
    assertThat(message(failed)).contains("70000");
    CoreV1Event event =
        Await.until(
            "four tries of the failing cast",
            SOON,
            () -> {
              List<CoreV1Event> e = events(plane, ns, "web", "CastFailed");
              return e.size() == 1 && e.get(0).getCount() != null && e.get(0).getCount() >= 4
                  ? e.get(0)
                  : null;
            });
    assertThat(events(plane, ns, "web", "CastFailed")).hasSize(1);
    assertThat(event.getType()).isEqualTo("Warning");
    // maxHistory 2: at most 3 records however often it is tried (the newest deployed kept)
    assertThat(records(plane, ns)).isLessThanOrEqualTo(3);
    ReleaseController asAdmin =
        ReleaseController.builder(
                new KubernetesOrchestrator(KubeClients.fromKubeconfig(plane.kubeconfig())),
                new KubernetesStore(KubeClients.fromKubeconfig(plane.kubeconfig())))
            .build();
    assertThat(asAdmin.history(ns, "web"))
        .extracting(r -> r.status().id())
        .first()
        .isEqualTo("failed");
    assertThat(asAdmin.history(ns, "web"))
        .filteredOn(r -> r.status().id().equals("failed"))
        .hasSize(1);
    assertThat(asAdmin.get(ns, "web").orElseThrow().source())
        .isEqualTo(ReleaseResource.source(new ReleaseKey(ns, "web")));

    // delete: uninstalled as the account, then the Release goes
    ItReleases.delete(plane, ns, "web");
    Await.until(
        "the Release gone", SOON, () -> read(plane, ns, "web") == null ? Boolean.TRUE : null);
    assertThat(configMapIn(plane, ns, "web-settings")).isNull();
    assertThat(awaitEvents(plane, ns, "web", "Uninstalled")).hasSize(1);
  }

  @Test
  void theEndpointsAnswerOnTheRunningController() throws Exception {
    ReleaseResourceController c = java.util.Objects.requireNonNull(controller);
    java.net.InetSocketAddress address = c.endpointsAddress().orElseThrow();
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + address.getPort();
    Await.until("the controller ready", SOON, () -> c.ready() ? Boolean.TRUE : null);

    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    HttpResponse<String> ready =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    HttpResponse<String> metrics =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));

    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("ok\n");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).isEqualTo("ok\n");
    // no metrics were given to this controller (the CLI gives Micrometer's Prometheus registry)
    assertThat(metrics.statusCode()).isEqualTo(404);
  }

  private static String json(Object tree) throws Exception {
    return dev.capstan.common.JsonMappers.trees().writeValueAsString(tree);
  }
}
