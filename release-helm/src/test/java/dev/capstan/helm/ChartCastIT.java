package dev.capstan.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.helm.chart.HelmChartRenderer;
import dev.capstan.k8s.KubeCapabilities;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.chart.ChartException;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ChartValues;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.file.ChartRelease;
import dev.capstan.release.file.ChartReleases;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A chart in the shapes public charts use ({@code src/test/resources/charts/store}: values and
 * {@code --set}, a {@code file://} subchart not vendored, {@code crds/} with a custom resource of
 * it, templates reading {@code .Capabilities}, a password generated unless {@code lookup} finds the
 * Secret, a test hook), rendered by real Helm 3 and Helm 4 and cast on the real control plane. The
 * writes are the API requests that wrote an object, exactly.
 */
@ControlPlaneTest
class ChartCastIT {
  private static final Path CHARTS = Path.of("src/test/resources/charts").toAbsolutePath();

  private record Setup(
      KubeClients kube,
      ReleaseController controller,
      HelmChartRenderer helm,
      ChartRequest request) {
    ChartRelease render(ChartRequest r) {
      return ChartReleases.render(helm, r);
    }

    CastResult cast(ChartRelease release) {
      kube.requests().reset();
      return controller.cast(release.input());
    }

    /**
     * Uninstalls the release with its CRD, which the next test's release casts again, and waits
     * until the CRD is gone.
     */
    void uninstall(ControlPlane plane, String ns) {
      if (controller.get(ns, "store").isPresent()) {
        controller.uninstall(ns, "store", UninstallOptions.defaults().withDeleteCrds(true));
      }
      ApiextensionsV1Api crds = new ApiextensionsV1Api(plane.client());
      Await.until(
          "the CRD widgets.store.example.com deleted",
          Duration.ofMinutes(2),
          () -> {
            try {
              crds.readCustomResourceDefinition("widgets.store.example.com").execute();
              return false;
            } catch (ApiException e) {
              return e.getCode() == 404;
            }
          },
          gone -> gone);
    }
  }

  private static Setup setup(int major, ControlPlane plane, String ns) {
    KubeClients kube = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController controller =
        ReleaseController.builder(new KubernetesOrchestrator(kube), new KubernetesStore(kube))
            .holder("it-charts")
            .parallelism(1) // writes in apply order, one at a time: the order is asserted
            .build();
    ChartRequest request =
        ChartRequest.of(
                new ChartReference.Directory(CHARTS.resolve("store").toString()), ns, "store")
            .withCapabilities(KubeCapabilities.read(kube))
            .withCluster(ClusterAccess.of(List.of(plane.kubeconfig().toString()), null, Map.of()));
    return new Setup(kube, controller, HelmChartRenderer.of(Helm.binary(major)), request);
  }

  private static String password(ControlPlane plane, String ns) throws Exception {
    byte[] value =
        Objects.requireNonNull(
                new CoreV1Api(plane.client())
                    .readNamespacedSecret("store-auth", ns)
                    .execute()
                    .getData())
            .get("password");
    return new String(value, StandardCharsets.UTF_8);
  }

  private static Map<String, String> config(ControlPlane plane, String ns) throws Exception {
    return Objects.requireNonNull(
        new CoreV1Api(plane.client())
            .readNamespacedConfigMap("store-config", ns)
            .execute()
            .getData());
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void aChartIsCastCrdsFirstAndItsGeneratedPasswordSurvivesReCastsAndAnUpgrade(
      int major, ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Setup s = setup(major, plane, ns);
    try {
      castReCastAndUpgrade(s, major, plane, ns);
    } finally {
      s.uninstall(plane, ns);
    }
  }

  private static void castReCastAndUpgrade(Setup s, int major, ControlPlane plane, String ns)
      throws Exception {
    ChartRelease first = s.render(s.request());

    assertThat(first.hooks()).isEmpty();
    assertThat(first.tests())
        .extracting(Hook::describe)
        .containsExactly("Pod/" + ns + "/store-test-connection (test)");
    // Helm 4 renders against the cluster only when it serves every kind: not the Widget yet
    assertThat(first.warnings()).hasSize(major == 4 ? 1 : 0);
    CastResult installed = s.cast(first);
    assertThat(ObjectWrites.of(s.kube()))
        .containsExactly(
            "PATCH customresourcedefinitions widgets.store.example.com",
            "PATCH configmaps " + ns + "/store-cache",
            "PATCH configmaps " + ns + "/store-config",
            "PATCH secrets " + ns + "/store-auth",
            "PATCH deployments " + ns + "/store-web",
            "PATCH widgets " + ns + "/store-shelf");
    Release r1 = installed.release();
    ChartOrigin chart = Objects.requireNonNull(r1.chart());
    assertThat(chart.name() + " " + chart.version() + " " + chart.appVersion())
        .isEqualTo("store 1.0.0 2.1");
    assertThat(chart.reference()).isEqualTo(CHARTS.resolve("store").toString());
    assertThat(chart.digest()).matches("sha256:[0-9a-f]{64}");
    assertThat(chart.renderer()).isEqualTo(major == 3 ? "helm v3.22.0" : "helm v4.3.1");
    assertThat(r1.version()).isEqualTo("2.1");
    // the capabilities are the cluster's, not Helm's defaults
    String minor = plane.serverVersion().split("\\.", -1)[1];
    assertThat(config(plane, ns))
        .containsEntry("kubeMinor", minor)
        .containsEntry("leases", "served")
        .doesNotContainKey("v9");
    String password = password(plane, ns);
    assertThat(password).hasSize(24);
    // the caller's folder is left as it was: dependencies were built in a copy
    assertThat(CHARTS.resolve("store/charts")).doesNotExist();
    assertThat(CHARTS.resolve("store/Chart.lock")).doesNotExist();

    // three identical re-casts: lookup finds the password, nothing is written
    ChartRequest again = s.request().withUpgrade(true);
    for (int i = 0; i < 3; i++) {
      ChartRelease same = s.render(again);
      assertThat(same.warnings()).isEmpty();
      CastResult recast = s.cast(same);
      assertThat(ObjectWrites.of(s.kube())).as("re-cast %d", i + 1).isEmpty();
      assertThat(recast.release().revision()).isEqualTo(i + 2);
      assertThat(password(plane, ns)).isEqualTo(password);
    }

    // an upgrade: more replicas writes the Deployment alone, and the password stays
    CastResult upgraded =
        s.cast(s.render(again.withValues(ChartValues.none().withSet("replicas=2"))));
    assertThat(ObjectWrites.of(s.kube())).containsExactly("PATCH deployments " + ns + "/store-web");
    assertThat(password(plane, ns)).isEqualTo(password);
    assertThat(Objects.requireNonNull(upgraded.release().chart()).values())
        .isEqualTo(Map.of("replicas", 2L));

    // a values change of the subchart writes only its ConfigMap and the Widget that reads it
    s.cast(
        s.render(
            again.withValues(
                ChartValues.none()
                    .withSet("replicas=2")
                    .withFile("cache.yaml", "cache: {size: 3}\n"))));
    assertThat(ObjectWrites.of(s.kube()))
        .containsExactly(
            "PATCH configmaps " + ns + "/store-cache", "PATCH widgets " + ns + "/store-shelf");
  }

  @ParameterizedTest
  @ValueSource(ints = {3})
  void aPasswordGivenAsAValueIsRecordedMaskedAndNeverInTheClear(
      int major, ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Setup s = setup(major, plane, ns);
    Path values = Files.createTempFile("store-values", ".yaml");
    Files.writeString(values, "auth: {password: correct-horse-battery}\ngreeting: hi\n");

    try {
      CastResult cast =
          s.cast(
              s.render(
                  s.request()
                      .withValues(
                          ChartValues.none()
                              .withFile(values.toString(), Files.readString(values)))));

      ChartOrigin chart = Objects.requireNonNull(cast.release().chart());
      assertThat(chart.values())
          .isEqualTo(Map.of("auth", Map.of("password", ChartOrigin.MASKED), "greeting", "hi"));
      assertThat(chart.maskedValues()).containsExactly("auth.password");
      assertThat(password(plane, ns)).isEqualTo("correct-horse-battery");
      assertThat(config(plane, ns)).containsEntry("greeting", "hi");
    } finally {
      s.uninstall(plane, ns);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void lookupReadsWithTheCallersCredentialsAndNoOthers(
      int major, ControlPlane plane, TestNamespace tns) {
    String ns = tns.name();
    Setup s = setup(major, plane, ns);
    // the caller is a service account that may read nothing: its lookup is refused, as its cast
    // would be
    ChartRequest asNobody =
        s.request()
            .withCluster(
                ClusterAccess.of(List.of(plane.kubeconfig().toString()), null, Map.of())
                    .impersonating("system:serviceaccount:" + ns + ":nobody", List.of()));

    assertThatThrownBy(() -> s.render(asNobody))
        .isInstanceOf(ChartException.class)
        .hasMessageStartingWith("chart " + CHARTS.resolve("store") + ": helm template failed: ")
        .hasMessageContaining("system:serviceaccount:" + ns + ":nobody")
        .hasMessageContaining("forbidden")
        .hasMessageEndingWith("; nothing was written");
  }
}
