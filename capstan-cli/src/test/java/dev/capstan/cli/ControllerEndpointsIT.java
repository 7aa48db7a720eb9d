package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.controller.ReleaseKey;
import dev.capstan.controller.ReleaseResource;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan controller run --http-address} in a process of its own, as the Deployment runs it:
 * {@code /healthz}, {@code /readyz} and {@code /metrics} scraped on loopback while it casts a
 * Release and keeps failing another; the failure that repeats itself is logged once.
 */
@ControlPlaneTest
class ControllerEndpointsIT {
  private static final Path JAR = Path.of("target", "capstan-cli-all.jar").toAbsolutePath();
  private static final Duration SOON = Duration.ofMinutes(2);

  @TempDir Path dir;
  private @Nullable Process controller;
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    Process p = controller;
    if (p != null) {
      p.destroyForcibly();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s =
        new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
      return s.getLocalPort();
    }
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString(UTF_8));
  }

  /** The value of a sample of {@code /metrics}, or -1 when it has none. */
  private double sample(int port, String line) throws Exception {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(line) + " ([0-9.eE+-]+)$")
            .matcher(get(port, "/metrics").body());
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  private static Map<String, Object> release(String ns, String name, Map<String, Object> object) {
    return Map.of(
        "apiVersion",
        ReleaseResource.API_VERSION,
        "kind",
        ReleaseResource.KIND,
        "metadata",
        Map.of("name", name, "labels", Map.of("capstan-it-shard", ns)),
        "spec",
        Map.of("interval", "1s", "manifests", List.of(object)));
  }

  private static Map<String, Object> configMap(String name) {
    return Map.of(
        "apiVersion",
        "v1",
        "kind",
        "ConfigMap",
        "metadata",
        Map.of("name", name),
        "data",
        Map.of());
  }

  @Test
  void theEndpointsAnswerAndTheMetricsCountReconcilesWhileARepeatedFailureIsLoggedOnce(
      ControlPlane plane, TestNamespace tns) throws Exception {
    try {
      endpointsMetricsAndVerbs(plane, tns.name());
    } finally {
      // the CRD goes again, as this module's other tests expect (ControllerReplicasIT starts
      // without it): the controller stopped, the Releases let go, then the CRD release uninstalled
      stop();
      for (String name : List.of("web", "copy")) {
        if (ReleaseResource.get(plane.client(), new ReleaseKey(tns.name(), name)).isPresent()) {
          ReleaseResource.patch(
              plane.client(),
              new ReleaseKey(tns.name(), name),
              "{\"metadata\":{\"finalizers\":null}}");
        }
      }
      CliRun gone =
          cli(
              plane,
              "release",
              "uninstall",
              "capstan-crd",
              "-n",
              "default",
              "--delete-crds",
              "--purge",
              "--yes");
      assertThat(gone.code()).as(gone.err()).isZero();
    }
  }

  private void endpointsMetricsAndVerbs(ControlPlane plane, String ns) throws Exception {
    CliRun crd = cli(plane, "controller", "crd");
    Files.writeString(dir.resolve("releases.capstan.dev.yaml"), crd.out(), UTF_8);
    CliRun installed =
        cli(
            plane,
            "release",
            "cast",
            "capstan-crd",
            "-n",
            "default",
            "-f",
            "releases.capstan.dev.yaml",
            "--yes");
    assertThat(installed.code()).as(installed.err()).isZero();
    int port = freePort();
    Path err = dir.resolve("controller.err");
    ProcessBuilder b =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                JAR.toString(),
                "--kubeconfig",
                plane.kubeconfig().toString(),
                "controller",
                "run",
                "--selector",
                "capstan-it-shard=" + ns,
                "--workers",
                "2",
                "--http-address",
                "127.0.0.1:" + port)
            .redirectOutput(dir.resolve("controller.out").toFile())
            .redirectError(err.toFile());
    b.environment().put("CAPSTAN_DAEMON", "false");
    controller = b.start();
    Await.until(
        "the endpoints ready",
        SOON,
        () -> {
          try {
            return get(port, "/readyz").statusCode() == 200 ? Boolean.TRUE : null;
          } catch (IOException notYet) {
            return null;
          }
        });

    CustomObjectsApi api = new CustomObjectsApi(plane.client());
    api.createNamespacedCustomObject(
            ReleaseResource.GROUP,
            ReleaseResource.VERSION,
            ns,
            ReleaseResource.PLURAL,
            release(ns, "web", configMap("web-settings")))
        .execute();
    // the same object in a second Release: a conflict, the same every second
    Await.until(
        "web cast",
        SOON,
        () -> ReleaseResource.get(plane.client(), new ReleaseKey(ns, "web")).orElse(null),
        ReleaseResource::ready);
    api.createNamespacedCustomObject(
            ReleaseResource.GROUP,
            ReleaseResource.VERSION,
            ns,
            ReleaseResource.PLURAL,
            release(ns, "copy", configMap("web-settings")))
        .execute();
    Await.until(
        "three reconciles of the conflict",
        SOON,
        () ->
            sample(
                        port,
                        "capstan_controller_reconcile_seconds_count{reason=\"Conflict\",result=\"failure\"}")
                    >= 3
                ? Boolean.TRUE
                : null);

    assertThat(get(port, "/healthz").body()).isEqualTo("ok\n");
    assertThat(get(port, "/readyz").body()).isEqualTo("ok\n");
    HttpResponse<String> metrics = get(port, "/metrics");
    assertThat(metrics.headers().firstValue("Content-Type"))
        .contains("text/plain; version=0.0.4; charset=utf-8");
    assertThat(
            sample(
                port,
                "capstan_controller_reconcile_seconds_count{reason=\"Cast\",result=\"success\"}"))
        .as("the cast, and web's idle reconciles since (Ready still says Cast)")
        .isGreaterThanOrEqualTo(1);
    assertThat(sample(port, "capstan_controller_failures_total{reason=\"Conflict\"}"))
        .isGreaterThanOrEqualTo(3);
    assertThat(sample(port, "capstan_controller_releases{condition=\"Ready\",status=\"True\"}"))
        .isEqualTo(1);
    assertThat(sample(port, "capstan_controller_releases{condition=\"Stalled\",status=\"True\"}"))
        .isEqualTo(1);
    assertThat(sample(port, "capstan_controller_queue_depth")).isGreaterThanOrEqualTo(0);
    assertThat(
            sample(
                port,
                "capstan_release_operation_seconds_count"
                    + "{error=\"none\",operation=\"cast\",outcome=\"succeeded\"}"))
        .isEqualTo(1);
    List<String> lines = Files.readAllLines(err, UTF_8);
    assertThat(lines.get(0))
        .startsWith("capstan: controller running on https://127.0.0.1:")
        .endsWith(", /healthz, /readyz and /metrics on 127.0.0.1:" + port + "); Ctrl-C stops it");
    // one line for the conflict, however often it was tried
    assertThat(lines)
        .filteredOn(l -> l.startsWith("capstan: Release " + ns + "/copy: "))
        .singleElement()
        .asString()
        .startsWith("capstan: Release " + ns + "/copy: Conflict: release " + ns + "/copy has");

    // the verbs that drive a Release
    CliRun reconciled = cli(plane, "controller", "reconcile", "web", "-n", ns);
    assertThat(reconciled.code()).as(reconciled.err()).isZero();
    assertThat(reconciled.out())
        .isEqualTo(
            "Release " + ns + "/web reconciled: Ready=True UpToDate: revision 1 is deployed\n");
    CliRun failing = cli(plane, "controller", "reconcile", "copy", "-n", ns);
    assertThat(failing.code()).isEqualTo(ExitCode.FAILED);
    assertThat(failing.out())
        .startsWith("Release " + ns + "/copy reconciled: Ready=False Conflict: ");

    CliRun suspended = cli(plane, "controller", "suspend", "web", "-n", ns);
    assertThat(suspended.out())
        .isEqualTo(
            "Release "
                + ns
                + "/web suspended: the controller leaves its release as it is until: capstan"
                + " controller resume web -n "
                + ns
                + "\n");
    Await.until(
        "web suspended",
        SOON,
        () -> ReleaseResource.get(plane.client(), new ReleaseKey(ns, "web")).orElse(null),
        r -> r.condition("Suspended") != null);
    CliRun refused = cli(plane, "controller", "reconcile", "web", "-n", ns);
    assertThat(refused.code()).isEqualTo(ExitCode.INVALID);
    assertThat(refused.err())
        .contains(
            "Release "
                + ns
                + "/web is suspended: the controller does not reconcile it; resume it first:"
                + " capstan controller resume web -n "
                + ns);
    CliRun resumed = cli(plane, "controller", "resume", "web", "-n", ns);
    assertThat(resumed.out())
        .isEqualTo("Release " + ns + "/web resumed: the controller reconciles it again.\n");
    Await.until(
        "web resumed",
        SOON,
        () -> ReleaseResource.get(plane.client(), new ReleaseKey(ns, "web")).orElse(null),
        r -> r.condition("Suspended") == null && r.ready());
    CliRun missing = cli(plane, "controller", "suspend", "nothing", "-n", ns);
    assertThat(missing.code()).isEqualTo(ExitCode.FAILED);
    assertThat(missing.err()).contains("Release " + ns + "/nothing does not exist");
  }

  private CliRun cli(ControlPlane plane, String... args) {
    List<String> all =
        new java.util.ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    return CliRun.of(Terminal.none(), k -> null, dir, all.toArray(String[]::new));
  }
}
