package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.RolloutStatus;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan update --build} end to end on a real control plane, with a real OCI registry on
 * 127.0.0.1 ({@link LoopbackRegistry}) and a STAND-IN builder: {@code standin-podman.sh}, installed
 * as {@code podman} on the command's PATH, which builds nothing but pushes a real (layerless) OCI
 * image to the registry with curl. The registry probe, the push and the rollout are real.
 */
@ControlPlaneTest
class UpdateBuildIT {
  @TempDir Path dir;
  private Path bin = Path.of("");
  private Path source = Path.of("");
  private String out = "";
  private String err = "";

  @BeforeEach
  void installTheStandInBuilderAndASourceCheckout() throws IOException {
    bin = Files.createDirectories(dir.resolve("bin"));
    Path podman = bin.resolve("podman");
    try (InputStream script =
        Objects.requireNonNull(UpdateBuildIT.class.getResourceAsStream("standin-podman.sh"))) {
      Files.write(podman, script.readAllBytes());
    }
    Files.setPosixFilePermissions(podman, PosixFilePermissions.fromString("rwxr-xr-x"));
    source = Files.createDirectories(dir.resolve("src"));
    for (String component : List.of("web", "worker")) {
      Files.createDirectories(source.resolve(component));
      Files.writeString(
          source.resolve(component).resolve("Dockerfile"),
          "FROM scratch\nCOPY " + component + " /" + component + "\n");
    }
  }

  private int run(ControlPlane plane, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    Map<String, @Nullable String> env = Map.of("PATH", bin + ":/usr/bin:/bin");
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
    out = run.out();
    err = run.err();
    return run.code();
  }

  private int update(ControlPlane plane) {
    return run(
        plane,
        "update",
        "--catalog",
        "catalog.yaml",
        "--release-manifest",
        "manifest.yaml",
        "--build",
        "--source",
        "src",
        "--builder",
        "podman",
        "--yes");
  }

  /** The catalog, the v1.1.0 manifest, and the platform at v1.0.0 in the namespace. */
  private void install(ControlPlane plane, String ns, LoopbackRegistry registry)
      throws IOException, ApiException {
    Files.writeString(
        dir.resolve("catalog.yaml"),
        """
        platform: Web Platform
        metadata: {domain: web.capstan.dev, partOf: web}
        installedCheck: {namespace: NS, deployment: web}
        components:
          - {name: web, namespace: NS, deployment: web, container: web, repository: demo/web, built: true}
          - {name: worker, namespace: NS, deployment: worker, container: worker, repository: demo/worker, built: true}
        """
            .replace("NS", ns));
    Files.writeString(
        dir.resolve("manifest.yaml"),
        """
        apiVersion: capstan.dev/v1alpha1
        kind: PlatformRelease
        version: v1.1.0
        registry: REG
        components:
          - {name: web, repository: demo/web, tag: v1.1.0}
          - {name: worker, repository: demo/worker, tag: v1.1.0}
        """
            .replace("REG", registry.host()));
    AppsV1Api apps = new AppsV1Api(plane.client());
    for (String name : List.of("web", "worker")) {
      apps.createNamespacedDeployment(
              ns,
              new V1Deployment()
                  .metadata(new V1ObjectMeta().name(name))
                  .spec(
                      new V1DeploymentSpec()
                          .replicas(1)
                          .selector(new V1LabelSelector().matchLabels(Map.of("app", name)))
                          .template(
                              new V1PodTemplateSpec()
                                  .metadata(new V1ObjectMeta().labels(Map.of("app", name)))
                                  .spec(
                                      new V1PodSpec()
                                          .containers(
                                              List.of(
                                                  new V1Container()
                                                      .name(name)
                                                      .image(
                                                          registry.host()
                                                              + "/demo/"
                                                              + name
                                                              + ":v1.0.0")))))))
          .execute();
      Await.until(
          "deployment " + name + " to roll out",
          Duration.ofSeconds(60),
          () -> apps.readNamespacedDeployment(name, ns).execute(),
          d -> RolloutStatus.of(d).state() == RolloutStatus.State.COMPLETE);
    }
  }

  private static String image(ControlPlane plane, String ns, String name) throws ApiException {
    return new AppsV1Api(plane.client())
        .readNamespacedDeployment(name, ns)
        .execute()
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getImage();
  }

  /** Runs the stand-in directly, as a release pipeline would have built and pushed an image. */
  private void publish(String image, String component) throws IOException, InterruptedException {
    for (List<String> argv :
        List.of(
            List.of(
                "build",
                "--platform",
                "linux/amd64",
                "-f",
                source.resolve(component).resolve("Dockerfile").toString(),
                "-t",
                image,
                source.toString()),
            List.of("push", image))) {
      List<String> command = new ArrayList<>(List.of(bin.resolve("podman").toString()));
      command.addAll(argv);
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(output).isZero();
    }
    Files.delete(bin.resolve("calls.log"));
  }

  private List<String> builderCalls() throws IOException {
    Path log = bin.resolve("calls.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  @Test
  void updateBuildBuildsTheMissingImagePushesItReusesThePublishedOneAndRollsOut(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    try (LoopbackRegistry registry = LoopbackRegistry.start(dir, false)) {
      install(plane, ns, registry);
      String web = registry.host() + "/demo/web:v1.1.0";
      String worker = registry.host() + "/demo/worker:v1.1.0";
      publish(worker, "worker");
      assertThat(registry.has("demo/web", "v1.1.0")).isFalse();

      assertThat(update(plane)).as(err).isZero();

      assertThat(out)
          .contains("Images (--build):\n")
          .containsPattern(
              "web +"
                  + java.util.regex.Pattern.quote(web)
                  + " +build +target tag missing from registry\n")
          .containsPattern(
              "worker +"
                  + java.util.regex.Pattern.quote(worker)
                  + " +reuse +target tag already in registry\n");
      assertThat(builderCalls())
          .containsExactly(
              "build --platform linux/amd64 -f "
                  + source
                  + "/web/Dockerfile -t "
                  + web
                  + " "
                  + source,
              "push " + web);
      assertThat(err)
          .contains("capstan: ")
          .contains("Rolled out " + ns + "/web")
          .contains("Rolled out " + ns + "/worker");
      assertThat(registry.has("demo/web", "v1.1.0")).isTrue();
      assertThat(image(plane, ns, "web")).isEqualTo(web);
      assertThat(image(plane, ns, "worker")).isEqualTo(worker);
    }
  }

  @Test
  void aFailingBuildExitsNonZeroNamingTheComponentAndPatchesNothing(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    try (LoopbackRegistry registry = LoopbackRegistry.start(dir, false)) {
      install(plane, ns, registry);
      Files.writeString(source.resolve("web").resolve("Dockerfile"), "FROM scratch\nRUN false\n");

      assertThat(update(plane)).isEqualTo(ExitCode.FAILED);

      String web = registry.host() + "/demo/web:v1.1.0";
      assertThat(err)
          .contains(
              "capstan: image build failed: component web: build of "
                  + web
                  + " failed ("
                  + bin.resolve("podman")
                  + " exit 1): Error: building at STEP \"RUN false\": exit status 1;"
                  + " already published: none");
      assertThat(builderCalls()).hasSize(2).allMatch(c -> c.startsWith("build "));
      assertThat(registry.has("demo/web", "v1.1.0")).isFalse();
      assertThat(image(plane, ns, "web")).isEqualTo(registry.host() + "/demo/web:v1.0.0");
      assertThat(image(plane, ns, "worker")).isEqualTo(registry.host() + "/demo/worker:v1.0.0");
    }
  }

  @Test
  void aRefusedPushExitsNonZeroNamingTheComponentAndPatchesNothing(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    try (LoopbackRegistry registry = LoopbackRegistry.start(dir, true)) {
      install(plane, ns, registry);

      assertThat(update(plane)).isEqualTo(ExitCode.FAILED);

      String web = registry.host() + "/demo/web:v1.1.0";
      assertThat(err)
          .contains("capstan: image build failed: component web: push of " + web + " failed (")
          .contains("Error: push of " + web + ": " + registry.host() + " refused the upload (HTTP");
      assertThat(builderCalls())
          .startsWith(
              "build --platform linux/amd64 -f "
                  + source
                  + "/web/Dockerfile -t "
                  + web
                  + " "
                  + source,
              "push " + web);
      assertThat(image(plane, ns, "web")).isEqualTo(registry.host() + "/demo/web:v1.0.0");
      assertThat(image(plane, ns, "worker")).isEqualTo(registry.host() + "/demo/worker:v1.0.0");
    }
  }

  @Test
  void aRegistryThatIsDownExitsNonZeroNamingTheComponentBeforeAnyBuild(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    String host;
    try (LoopbackRegistry registry = LoopbackRegistry.start(dir, false)) {
      host = registry.host();
      install(plane, ns, registry);
    }

    assertThat(update(plane)).isEqualTo(ExitCode.FAILED);

    assertThat(err)
        .contains(
            "capstan: component web: registry probe for "
                + host
                + "/demo/web:v1.1.0 failed: HEAD http://"
                + host
                + "/v2/demo/web/manifests/v1.1.0: ConnectException");
    assertThat(builderCalls()).isEmpty();
    assertThat(image(plane, ns, "web")).isEqualTo(host + "/demo/web:v1.0.0");
    assertThat(image(plane, ns, "worker")).isEqualTo(host + "/demo/worker:v1.0.0");
  }
}
