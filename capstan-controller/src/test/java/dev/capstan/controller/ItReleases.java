package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.file.Overrides;
import dev.capstan.release.file.ReleaseFile;
import dev.capstan.release.file.ReleaseFiles;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the controller's ITs do with Releases on the control plane: build them, apply and patch them
 * as a user does, read them back and wait for their conditions.
 */
final class ItReleases {
  /** How long a timing fact may take before a test gives up. */
  static final Duration SOON = Duration.ofSeconds(90);

  private ItReleases() {}

  /** Installs the Release CRD with Capstan, as docs/controller.md does (a no-op when it is). */
  static void installCrd(ControlPlane plane) {
    KubeClients clients = KubeClients.fromKubeconfig(plane.kubeconfig());
    ReleaseController engine =
        ReleaseController.builder(new KubernetesOrchestrator(clients), new KubernetesStore(clients))
            .holder("it-installer")
            .build();
    ReleaseFile crd =
        ReleaseFiles.manifestText(
            ReleaseResource.crdYaml(),
            "releases.capstan.dev.yaml",
            new Overrides("default", "capstan-crd"));
    engine.cast(crd.toSpec(), crd.payloads());
  }

  static Map<String, Object> configMap(String name, String value) {
    return configMap(name, Map.of("value", value));
  }

  static Map<String, Object> configMap(String name, Map<String, String> data) {
    return Map.of(
        "apiVersion", "v1", "kind", "ConfigMap", "metadata", Map.of("name", name), "data", data);
  }

  static Map<String, Object> deployment(String name) {
    return deployment(name, "registry.example/" + name + ":1");
  }

  /** A Deployment of one replica running {@code image}. */
  static Map<String, Object> deployment(String name, String image) {
    Map<String, Object> labels = Map.of("app", name);
    return Map.of(
        "apiVersion",
        "apps/v1",
        "kind",
        "Deployment",
        "metadata",
        Map.of("name", name),
        "spec",
        Map.of(
            "replicas", 1,
            "selector", Map.of("matchLabels", labels),
            "template",
                Map.of(
                    "metadata", Map.of("labels", labels),
                    "spec", Map.of("containers", List.of(Map.of("name", "app", "image", image))))));
  }

  static Map<String, Object> release(String name, Map<String, Object> spec) {
    return release(name, Map.of(), spec);
  }

  static Map<String, Object> release(
      String name, Map<String, String> labels, Map<String, Object> spec) {
    return Map.of(
        "apiVersion",
        ReleaseResource.API_VERSION,
        "kind",
        ReleaseResource.KIND,
        "metadata",
        Map.of("name", name, "labels", labels),
        "spec",
        spec);
  }

  static Map<String, Object> spec(Object... entries) {
    Map<String, Object> spec = new LinkedHashMap<>();
    for (int i = 0; i < entries.length; i += 2) {
      spec.put((String) entries[i], entries[i + 1]);
    }
    return spec;
  }

  static void apply(ControlPlane plane, String ns, Map<String, Object> release)
      throws ApiException {
    new CustomObjectsApi(plane.client())
        .createNamespacedCustomObject(
            ReleaseResource.GROUP, ReleaseResource.VERSION, ns, ReleaseResource.PLURAL, release)
        .execute();
  }

  /** A JSON merge patch of the Release, as {@code kubectl patch --type=merge} sends. */
  static void patch(ControlPlane plane, String ns, String name, String json) {
    ReleaseResource.patch(plane.client(), new ReleaseKey(ns, name), json);
  }

  static void delete(ControlPlane plane, String ns, String name) throws ApiException {
    new CustomObjectsApi(plane.client())
        .deleteNamespacedCustomObject(
            ReleaseResource.GROUP, ReleaseResource.VERSION, ns, ReleaseResource.PLURAL, name)
        .execute();
  }

  static @Nullable ReleaseResource read(ControlPlane plane, String ns, String name) {
    return ReleaseResource.get(plane.client(), new ReleaseKey(ns, name)).orElse(null);
  }

  /**
   * Waits until the Release's Ready condition has {@code status} with {@code reason}, for its
   * generation.
   */
  static ReleaseResource awaitReady(
      ControlPlane plane, String ns, String name, String status, String reason) {
    return Await.until(
        "Release " + ns + "/" + name + " Ready=" + status + " " + reason,
        SOON,
        () -> read(plane, ns, name),
        r -> {
          Map<?, ?> ready = r.condition("Ready");
          return ready != null
              && status.equals(ready.get("status"))
              && reason.equals(ready.get("reason"))
              && Long.valueOf(r.generation())
                  .equals(
                      ready.get("observedGeneration") instanceof Number n ? n.longValue() : null);
        });
  }

  /** The message of the Release's Ready condition. */
  static String message(ReleaseResource r) {
    Map<?, ?> ready = r.condition("Ready");
    return ready == null ? "" : String.valueOf(ready.get("message"));
  }

  static @Nullable V1ConfigMap configMapIn(ControlPlane plane, String ns, String name)
      throws ApiException {
    try {
      return new CoreV1Api(plane.client()).readNamespacedConfigMap(name, ns).execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  static V1ConfigMap existing(ControlPlane plane, String ns, String name) throws ApiException {
    return java.util.Objects.requireNonNull(configMapIn(plane, ns, name), name);
  }

  static String value(@Nullable V1ConfigMap c) {
    return c == null || c.getData() == null ? "" : String.valueOf(c.getData().get("value"));
  }

  /**
   * The requests of {@code counts} that write: everything but reads, watches and dry runs (which
   * persist nothing: {@code RequestCounter}).
   */
  static long writes(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .filter(
            e ->
                !e.getKey().startsWith("GET ")
                    && !e.getKey().startsWith("LIST ")
                    && !e.getKey().startsWith("WATCH ")
                    && !e.getKey().startsWith("DRYRUN-"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** kubectl of the control plane's version, from the control-plane build. */
  static Path kubectl(ControlPlane plane) throws IOException, InterruptedException {
    Path scripts =
        Path.of(System.getProperty("capstan.controlPlane.scripts", "../testing/control-plane"));
    Process p =
        new ProcessBuilder(
                scripts.resolve("build.sh").toString(),
                "--print-bin",
                "--k8s-version",
                plane.serverVersion())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String bin = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor()).isZero();
    return Path.of(bin, "kubectl");
  }

  /**
   * Runs kubectl with the admin kubeconfig and {@code args}; returns its output (standard output
   * and error), after checking it exited with 0.
   */
  static String kubectl(ControlPlane plane, String... args)
      throws IOException, InterruptedException {
    return kubectlExiting(plane, 0, args);
  }

  /**
   * Runs kubectl as {@link #kubectl(ControlPlane, String...)} does, expecting exit {@code code}.
   */
  static String kubectlExiting(ControlPlane plane, int code, String... args)
      throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>();
    command.add(kubectl(plane).toString());
    command.add("--kubeconfig=" + plane.kubeconfig());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(90, java.util.concurrent.TimeUnit.SECONDS)).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isEqualTo(code);
    return out;
  }
}
