package dev.capstan.controller;

import static dev.capstan.controller.ItReleases.SOON;
import static dev.capstan.controller.ItReleases.apply;
import static dev.capstan.controller.ItReleases.awaitReady;
import static dev.capstan.controller.ItReleases.configMap;
import static dev.capstan.controller.ItReleases.configMapIn;
import static dev.capstan.controller.ItReleases.message;
import static dev.capstan.controller.ItReleases.read;
import static dev.capstan.controller.ItReleases.release;
import static dev.capstan.controller.ItReleases.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.helm.chart.HelmChartRenderer;
import dev.capstan.helm.testing.HelmBinaries;
import dev.capstan.helm.testing.SecureRegistry;
import dev.capstan.helm.testing.TestCa;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ChartOrigin;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Releases with {@code spec.chart} on a real control plane, cast by a controller that runs as the
 * shipped manifests make it (its own service account's token, {@code --require-service-account
 * --no-cross-namespace-refs}), rendering with real Helm 3 from the local OCI registry (TLS by a CA
 * of the test's own, credentials): the chart, its values sources, credentials and CA are read as
 * the tenant's account, and so is every {@code lookup} of its templates. What is asserted exactly:
 * statuses, Events, records, which objects changed and the requests the controller sent; how soon
 * is bounded by generous timeouts only.
 */
@ControlPlaneTest
class ChartReleaseIT {
  private static final String SHARD = "capstan-it-shard";
  private static final Map<String, String> MINE = Map.of(SHARD, "charts");
  private static final Path CHART = Path.of("src/test/resources/charts/web").toAbsolutePath();

  private static @Nullable ReleaseResourceController controller;
  private static @Nullable KubeClients clients;
  private static @Nullable SecureRegistry registry;
  private static @Nullable TestCa ca;
  private static @Nullable Path home;
  private static @Nullable Path packaged;
  private static final List<String> outcomes = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startTheRegistryAndTheShippedController(ControlPlane plane) throws Exception {
    ItReleases.installCrd(plane);
    Path dir = Files.createTempDirectory("chart-release-it");
    ca = TestCa.create(dir.resolve("ca"));
    registry = SecureRegistry.start(Files.createDirectories(dir.resolve("registry")), ca);
    home = dir.resolve("home");
    packaged = Files.createDirectories(dir.resolve("packaged"));
    registry.login(home);
    push("1.0.0");

    clients = ShippedController.castAndLogIn(plane);
    controller =
        ReleaseResourceController.builder(clients)
            .workers(2)
            .selector(SHARD + "=charts")
            .identity("it-charts")
            .tenancy(
                Tenancy.open()
                    .withServiceAccountRequired(true)
                    .withCrossNamespaceRefs(false)
                    // the test's registry is on loopback: allowed only when the list names it
                    .withChartRepositories(List.of("oci://" + registry.host() + "/charts")))
            .charts(HelmChartRenderer.of(HelmBinaries.of(3)))
            .listener((release, outcome) -> outcomes.add(release + ": " + outcome))
            .build();
    controller.start();
  }

  @AfterAll
  static void stop() {
    ReleaseResourceController c = controller;
    if (c != null) {
      c.close();
    }
    SecureRegistry r = registry;
    if (r != null) {
      r.close();
    }
  }

  /** Packages the fixture chart at {@code version} and pushes it to the registry. */
  private static void push(String version) {
    Path archive =
        HelmBinaries.packaged(
            CHART, version, Objects.requireNonNull(packaged), Objects.requireNonNull(home));
    HelmBinaries.helm3(
        Objects.requireNonNull(home),
        "push",
        archive.toString(),
        "oci://" + Objects.requireNonNull(registry).host() + "/charts",
        "--ca-file",
        Objects.requireNonNull(ca).ca().toString());
  }

  /**
   * The tenant's part: its account {@code deployer} (capstan-tenant and edit in its namespace), the
   * registry's credentials and CA in Secrets of its namespace.
   */
  private static void tenant(ControlPlane plane, String ns) throws Exception {
    ShippedController.tenant(plane, ns, "deployer", "edit");
    secret(
        plane,
        ns,
        "registry-creds",
        Map.of("username", SecureRegistry.USER, "password", SecureRegistry.PASSWORD));
    secret(
        plane,
        ns,
        "registry-ca",
        Map.of("ca.crt", Files.readString(Objects.requireNonNull(ca).ca())));
  }

  private static void secret(ControlPlane plane, String ns, String name, Map<String, String> data)
      throws ApiException {
    new CoreV1Api(plane.client())
        .createNamespacedSecret(
            ns, new V1Secret().metadata(new V1ObjectMeta().name(name)).stringData(data))
        .execute();
  }

  /** A Release of the fixture chart from the registry, as the account {@code deployer}. */
  private static Map<String, Object> chartRelease(String name, Object... chartEntries) {
    return chartRelease(name, Map.of(), chartEntries);
  }

  /** The same, with more fields of the spec. */
  private static Map<String, Object> chartRelease(
      String name, Map<String, Object> more, Object... chartEntries) {
    Map<String, Object> chart = new LinkedHashMap<>();
    chart.put("repository", "oci://" + Objects.requireNonNull(registry).host() + "/charts");
    chart.put("name", "web");
    chart.put("secretRef", Map.of("name", "registry-creds"));
    chart.put("certSecretRef", Map.of("name", "registry-ca"));
    chart.putAll(spec(chartEntries));
    Map<String, Object> spec = spec("serviceAccountName", "deployer", "chart", chart);
    spec.putAll(more);
    return release(name, MINE, spec);
  }

  private static ReleaseResource awaitMessage(
      ControlPlane plane, String ns, String name, String message) {
    return Await.until(
        "Release " + ns + "/" + name + ": " + message,
        SOON,
        () -> read(plane, ns, name),
        r -> message.equals(message(r)));
  }

  /** What the controller said, for a failing assertion. */
  private static String said() {
    return "outcomes: " + outcomes;
  }

  private static void resetRequests() {
    Objects.requireNonNull(clients).requests().reset();
  }

  private static V1Secret secretIn(ControlPlane plane, String ns, String name) throws ApiException {
    return new CoreV1Api(plane.client()).readNamespacedSecret(name, ns).execute();
  }

  private static String data(@Nullable V1ConfigMap c, String key) {
    return c == null || c.getData() == null ? "" : String.valueOf(c.getData().get(key));
  }

  @Test
  void aChartFromTheRegistryIsCastAsItsAccountAndCastAgainForANewVersionOrAValuesChange(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    tenant(plane, ns);
    new CoreV1Api(plane.client())
        .createNamespacedConfigMap(
            ns,
            new V1ConfigMap()
                .metadata(new V1ObjectMeta().name("web-values"))
                .data(Map.of("values.yaml", "color: red\n")))
        .execute();
    apply(
        plane,
        ns,
        chartRelease(
            "web",
            Map.of("interval", "2s"),
            "version",
            "^1.0.0",
            "valuesFrom",
            List.of(Map.of("kind", "ConfigMap", "name", "web-values"))));

    ReleaseResource first = awaitReady(plane, ns, "web", "True", "Cast");
    assertThat(message(first)).isEqualTo("revision 1: 2 created; chart web 1.0.0");
    V1ConfigMap settings = configMapIn(plane, ns, "web-settings");
    assertThat(data(settings, "color")).isEqualTo("red");
    assertThat(data(settings, "chartVersion")).isEqualTo("1.0.0");
    V1Secret auth = secretIn(plane, ns, "web-auth");
    String password =
        new String(Objects.requireNonNull(auth.getData()).get("password"), StandardCharsets.UTF_8);
    assertThat(password).hasSize(20);

    // the identical chart, rendered at every interval, writes nothing: its lookup, as the
    // account, found the password it generated
    resetRequests();
    ReleaseResourceController c = Objects.requireNonNull(controller);
    int before = c.reconciles();
    Await.until(
        "three idle reconciles", SOON, () -> c.reconciles() >= before + 3 ? c.reconciles() : null);
    assertThat(ShippedController.objectWritesIn(Objects.requireNonNull(clients), ns))
        .as(said())
        .isEmpty();

    // a new version in the range: its one changed object, the new record, the lease
    resetRequests();
    push("1.1.0");
    awaitMessage(plane, ns, "web", "revision 2: 1 updated; chart web 1.1.0");
    assertThat(data(configMapIn(plane, ns, "web-settings"), "chartVersion")).isEqualTo("1.1.0");
    assertThat(secretIn(plane, ns, "web-auth").getMetadata().getResourceVersion())
        .isEqualTo(auth.getMetadata().getResourceVersion());
    assertThat(ShippedController.objectWritesIn(Objects.requireNonNull(clients), ns))
        .as(said())
        .isEqualTo(
            Map.of(
                "CREATE leases", 1L,
                "PATCH configmaps", 1L,
                "CREATE secrets", 1L,
                "DELETE leases", 1L));

    new CoreV1Api(plane.client())
        .replaceNamespacedConfigMap(
            "web-values",
            ns,
            new V1ConfigMap()
                .metadata(new V1ObjectMeta().name("web-values"))
                .data(Map.of("values.yaml", "color: green\n")))
        .execute();
    awaitMessage(plane, ns, "web", "revision 3: 1 updated; chart web 1.1.0");
    assertThat(data(configMapIn(plane, ns, "web-settings"), "color")).isEqualTo("green");

    // the Event is written after the status the wait above saw: wait for its third count
    List<CoreV1Event> casts =
        Await.until(
            "the Cast event counted 3 times",
            SOON,
            () -> {
              List<CoreV1Event> e =
                  new CoreV1Api(plane.client())
                      .listNamespacedEvent(ns)
                      .fieldSelector("involvedObject.name=web,reason=Cast")
                      .execute()
                      .getItems();
              return e.size() == 1 && Integer.valueOf(3).equals(e.get(0).getCount()) ? e : null;
            });
    assertThat(casts).hasSize(1);
    assertThat(casts.get(0).getMessage()).isEqualTo("revision 3: 1 updated; chart web 1.1.0");
    assertThat(casts.get(0).getCount()).isEqualTo(3);

    KubeClients admin = KubeClients.fromKubeconfig(plane.kubeconfig());
    ChartOrigin chart =
        Objects.requireNonNull(
            ReleaseController.builder(new KubernetesOrchestrator(admin), new KubernetesStore(admin))
                .build()
                .get(ns, "web")
                .orElseThrow()
                .chart());
    assertThat(chart.reference())
        .isEqualTo("oci://" + Objects.requireNonNull(registry).host() + "/charts/web");
    assertThat(chart.describe()).isEqualTo("web 1.1.0");
    assertThat(chart.values()).isEqualTo(Map.of("color", "green"));
    assertThat(chart.renderer()).isEqualTo("helm v3.22.0");
  }

  @Test
  void aLookupReadsAsTheAccountSoASecretItMayNotReadRefusesTheChartAndWritesNothing(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String other = ns + "-other";
    tenant(plane, ns);
    new CoreV1Api(plane.client())
        .createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(other)))
        .execute();
    try {
      secret(plane, other, "top-secret", Map.of("token", "not-for-tenants"));
      secret(plane, ns, "visible", Map.of("token", "the-tenants-own"));
      resetRequests();

      apply(
          plane,
          ns,
          chartRelease(
              "peek",
              "version",
              "1.0.0",
              "values",
              Map.of("peek", Map.of("namespace", other, "name", "top-secret"))));

      ReleaseResource refused = awaitReady(plane, ns, "peek", "False", "ChartFailed");
      assertThat(message(refused))
          .startsWith(
              "chart oci://" + Objects.requireNonNull(registry).host() + "/charts/web: helm")
          .contains(
              "is forbidden: User \"system:serviceaccount:"
                  + ns
                  + ":deployer\" cannot get resource \"secrets\"")
          .contains("top-secret")
          .endsWith("; nothing was written")
          .doesNotContain("not-for-tenants");
      assertThat(configMapIn(plane, ns, "peek-settings")).isNull();
      assertThat(ShippedController.objectWritesIn(Objects.requireNonNull(clients), ns))
          .as(said())
          .isEmpty();

      // the same lookup of a Secret of its own namespace finds it
      ItReleases.patch(
          plane,
          ns,
          "peek",
          "{\"spec\":{\"chart\":{\"values\":{\"peek\":{\"namespace\":\""
              + ns
              + "\",\"name\":\"visible\"}}}}}");
      awaitReady(plane, ns, "peek", "True", "Cast");
      assertThat(data(configMapIn(plane, ns, "peek-settings"), "peeked")).isEqualTo("found");
    } finally {
      new CoreV1Api(plane.client()).deleteNamespace(other).execute();
    }
  }

  @Test
  void aChartRenderingAClusterRoleBindingIsRefusedNamingThePermissionBeforeAnyWrite(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    tenant(plane, ns);
    resetRequests();

    apply(
        plane,
        ns,
        chartRelease("admin", "version", "1.0.0", "values", Map.of("clusterAdmin", true)));

    ReleaseResource refused = awaitReady(plane, ns, "admin", "False", "Forbidden");
    assertThat(message(refused))
        .startsWith(
            "the release is cast as system:serviceaccount:" + ns + ":deployer, which may not")
        .contains("clusterrolebindings")
        .contains("rbac.authorization.k8s.io/ClusterRoleBinding//" + ns + "-admin-admin")
        .endsWith("nothing was written");
    assertThat(ShippedController.objectWritesIn(Objects.requireNonNull(clients), ns))
        .as(said())
        .isEmpty();
    assertThat(configMapIn(plane, ns, "admin-settings")).isNull();
    assertThat(
            new RbacAuthorizationV1Api(plane.client())
                .listClusterRoleBinding()
                .fieldSelector("metadata.name=" + ns + "-admin-admin")
                .execute()
                .getItems())
        .isEmpty();
  }

  @Test
  void valuesFromAnotherNamespaceAreRefusedByFieldAndAChartBesideManifestsByTheApiServer(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    tenant(plane, ns);

    apply(
        plane,
        ns,
        chartRelease(
            "borrow",
            "valuesFrom",
            List.of(Map.of("kind", "Secret", "name", "db-values", "namespace", "kube-system"))));

    ReleaseResource refused = awaitReady(plane, ns, "borrow", "False", "InvalidSpec");
    assertThat(message(refused))
        .isEqualTo(
            "Release "
                + ns
                + "/borrow: spec.chart.valuesFrom[0].namespace: must be the Release's own"
                + " namespace "
                + ns
                + ": a Release reads ConfigMaps and Secrets of its own namespace only, as its"
                + " service account: 'kube-system'");

    Map<String, Object> both =
        chartRelease("both", Map.of("manifests", List.of(configMap("a", "1"))));
    assertThatThrownBy(() -> apply(plane, ns, both))
        .isInstanceOf(ApiException.class)
        .satisfies(e -> assertThat(((ApiException) e).getCode()).isEqualTo(422))
        .satisfies(
            e ->
                assertThat(((ApiException) e).getResponseBody())
                    .contains("a Release casts a chart or manifests, not both"));
  }

  /**
   * docs/controller.md's chart example, with the test registry's address and credentials for the
   * page's, its namespace and account for {@code team-a}'s: applied with kubectl as the page gives
   * it, it is cast.
   */
  @Test
  void theControllerPagesChartExampleIsCastWithTheTestRegistryInPlaceOfItsOwn(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    ShippedController.tenant(plane, ns, "deployer", "edit");
    secret(
        plane,
        ns,
        "registry-ca",
        Map.of("ca.crt", Files.readString(Objects.requireNonNull(ca).ca())));
    String page = Files.readString(Path.of("..", "docs", "controller.md"));
    int start = page.indexOf("```yaml\n# web-chart.yaml\n");
    assertThat(start).as("docs/controller.md's # web-chart.yaml block").isNotNegative();
    String example = page.substring(start + "```yaml\n".length(), page.indexOf("```\n", start + 8));
    String ours =
        example
            .replace(
                "oci://registry.example.com/charts",
                "oci://" + Objects.requireNonNull(registry).host() + "/charts")
            .replace(
                "{username: ci, password: s3cret}",
                "{username: "
                    + SecureRegistry.USER
                    + ", password: "
                    + SecureRegistry.PASSWORD
                    + "}")
            .replace("namespace: team-a", "namespace: " + ns)
            .replace("serviceAccountName: capstan-release", "serviceAccountName: deployer")
            .replace(
                "metadata: {name: web, namespace: " + ns + "}",
                "metadata: {name: web, namespace: " + ns + ", labels: {" + SHARD + ": charts}}");
    assertThat(ours).doesNotContain("team-a", "registry.example.com", "capstan-release");
    Path file = Files.createTempFile(Path.of("target"), "web-chart-", ".yaml");
    Files.writeString(file, ours);

    ItReleases.kubectl(plane, "apply", "-f", file.toString());

    ReleaseResource web = awaitReady(plane, ns, "web", "True", "Cast");
    assertThat(message(web)).matches("revision 1: 2 created; chart web 1\\.[01]\\.0");
    assertThat(data(configMapIn(plane, ns, "web-settings"), "color")).isEqualTo("blue");
  }
}
