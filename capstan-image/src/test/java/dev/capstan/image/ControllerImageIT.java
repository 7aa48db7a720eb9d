package dev.capstan.image;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.cli.LoopbackRegistry;
import dev.capstan.controller.ReleaseKey;
import dev.capstan.controller.ReleaseResource;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image as a cluster gets it: the OCI archive the build wrote is pushed to a registry on
 * 127.0.0.1 and pulled back by tag (every digest checked), its layers are unpacked into a root file
 * system, and its entrypoint runs there as a container runtime would start it (chroot, the image's
 * user, environment and working directory): the command line installs the Release CRD, and the
 * controller casts a Release on the real control plane. Running it needs root (chroot); the rest of
 * the test does not.
 */
@ControlPlaneTest
class ControllerImageIT {
  private static final Duration SOON = Duration.ofMinutes(2);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String REPOSITORY = "capstan";

  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();

  /**
   * Stops every process the test started in the image, and the JVMs in them: chroot changes the
   * user, which clears the parent-death signal unshare sets, so each is killed by pid.
   */
  @AfterEach
  void stopWhatRan() throws InterruptedException {
    for (Process p : started) {
      List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
      tree.add(p.toHandle());
      tree.forEach(ProcessHandle::destroyForcibly);
      for (ProcessHandle h : tree) {
        h.onExit().completeOnTimeout(h, 30, TimeUnit.SECONDS).join();
      }
      assertThat(tree).as("processes still alive").noneMatch(ProcessHandle::isAlive);
    }
  }

  private static Path archive() {
    return Path.of(System.getProperty("capstan.image.tar", "target/capstan-image.tar"));
  }

  private static String imageName() {
    return System.getProperty("capstan.image.name", "capstan:0.1.0-SNAPSHOT");
  }

  @Test
  void theDeploymentNamesTheImageTheBuildMakes() throws IOException {
    Path deployment =
        Path.of(
            System.getProperty(
                "capstan.image.deployment", "../capstan-controller/deploy/deployment.yaml"));
    Matcher image =
        Pattern.compile("(?m)^\\s+image:\\s*(\\S+)\\s*$").matcher(Files.readString(deployment));
    assertThat(image.find()).as("an image line in " + deployment).isTrue();
    assertThat(image.group(1)).isEqualTo(imageName());
  }

  @Test
  void theImagePulledFromARegistryRunsTheCommandLineAndTheController(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String tag = imageName().substring(imageName().indexOf(':') + 1);
    Path rootfs = Files.createDirectories(dir.resolve("rootfs"));
    JsonNode config;
    try (LoopbackRegistry registry = LoopbackRegistry.start(dir, false)) {
      Distribution distribution = new Distribution(registry.host());
      // 1. push what the build wrote: the blobs, then the manifest under the tag
      Path layout = Files.createDirectories(dir.resolve("archive"));
      run(List.of("tar", "-xf", archive().toString(), "-C", layout.toString()));
      JsonNode index = JSON.readTree(layout.resolve("index.json").toFile());
      assertThat(index.path("manifests")).hasSize(1);
      String manifestDigest = index.path("manifests").get(0).path("digest").asText();
      byte[] manifest = blob(layout, manifestDigest);
      List<String> blobs = new ArrayList<>();
      blobs.add(JSON.readTree(manifest).path("config").path("digest").asText());
      JSON.readTree(manifest).path("layers").forEach(l -> blobs.add(l.path("digest").asText()));
      for (String digest : blobs) {
        assertThat(distribution.pushBlob(REPOSITORY, blob(layout, digest))).isEqualTo(digest);
      }
      assertThat(distribution.pushManifest(REPOSITORY, tag, manifest)).isEqualTo(manifestDigest);
      assertThat(registry.has(REPOSITORY, tag)).isTrue();

      // 2. pull it back by tag, as a node would, and unpack the layers in order
      JsonNode pulled = JSON.readTree(distribution.pullManifest(REPOSITORY, tag));
      assertThat(pulled.path("mediaType").asText()).isEqualTo(Distribution.OCI_MANIFEST);
      config =
          JSON.readTree(
              distribution.pullBlob(REPOSITORY, pulled.path("config").path("digest").asText()));
      int layer = 0;
      for (JsonNode l : pulled.path("layers")) {
        assertThat(l.path("mediaType").asText())
            .isEqualTo("application/vnd.oci.image.layer.v1.tar+gzip");
        Path file = dir.resolve("layer-" + layer++ + ".tar.gz");
        Files.write(file, distribution.pullBlob(REPOSITORY, l.path("digest").asText()));
        run(List.of("tar", "-xzpf", file.toString(), "-C", rootfs.toString()));
      }
    }

    // 3. what the image is: linux on this machine's architecture, the nonroot user, a JVM, no shell
    assertThat(config.path("os").asText()).isEqualTo("linux");
    assertThat(config.path("architecture").asText())
        .isEqualTo(System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64");
    JsonNode container = config.path("config");
    assertThat(container.path("User").asText()).isEqualTo("65532:65532");
    List<String> entrypoint = strings(container.path("Entrypoint"));
    assertThat(entrypoint).startsWith("/opt/java/bin/java").endsWith("dev.capstan.cli.Main");
    assertThat(rootfs.resolve("opt/java/bin/java")).isExecutable();
    assertThat(rootfs.resolve("app/jib-classpath-file")).isRegularFile();
    assertThat(rootfs.resolve("bin/sh")).doesNotExist();
    assertThat(rootfs.resolve("usr/bin")).doesNotExist();

    // 4. run it, as a container runtime starts it (namespaces and chroot need root)
    assumeTrue(
        (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0,
        "running the image needs root (namespaces, chroot); it was pushed, pulled and checked above");
    Path work = Files.createDirectories(rootfs.resolve("work"));
    Files.copy(plane.kubeconfig(), work.resolve("kubeconfig"));
    Files.setPosixFilePermissions(
        work.resolve("kubeconfig"), PosixFilePermissions.fromString("rw-r--r--"));
    Map<String, String> env = new LinkedHashMap<>();
    container.path("Env").forEach(e -> env.put(before(e.asText()), after(e.asText())));

    Unpacked image = new Unpacked(rootfs, entrypoint, env);

    String crd = inImage(image, "controller", "crd");
    assertThat(crd).contains("name: releases.capstan.dev");
    Files.writeString(work.resolve("crd.yaml"), crd, UTF_8);
    String cast =
        inImage(
            image,
            "release",
            "cast",
            "capstan-crd",
            "-n",
            tns.name(),
            "-f",
            "/work/crd.yaml",
            "--yes");
    assertThat(cast).contains("revision 1");

    String ns = tns.name();
    Process controller =
        startInImage(
            image, "controller", "run", "--selector", "capstan-it-shard=" + ns, "--workers", "2");
    new CustomObjectsApi(plane.client())
        .createNamespacedCustomObject(
            ReleaseResource.GROUP,
            ReleaseResource.VERSION,
            ns,
            ReleaseResource.PLURAL,
            Map.of(
                "apiVersion",
                ReleaseResource.API_VERSION,
                "kind",
                ReleaseResource.KIND,
                "metadata",
                Map.of("name", "web", "labels", Map.of("capstan-it-shard", ns)),
                "spec",
                Map.of(
                    "manifests",
                    List.of(
                        Map.of(
                            "apiVersion",
                            "v1",
                            "kind",
                            "ConfigMap",
                            "metadata",
                            Map.of("name", "web-settings"),
                            "data",
                            Map.of("from", "the image"))))))
        .execute();
    Await.until(
        "the Release cast by the controller in the image",
        SOON,
        () -> readyMessage(plane, new ReleaseKey(ns, "web")),
        m -> "revision 1: 1 created".equals(m) || !controller.isAlive());
    assertThat(controller.isAlive()).as(log("controller")).isTrue();
    assertThat(
            new CoreV1Api(plane.client())
                .readNamespacedConfigMap("web-settings", ns)
                .execute()
                .getData())
        .containsEntry("from", "the image");
  }

  private static @Nullable String readyMessage(ControlPlane plane, ReleaseKey key) {
    var r = ReleaseResource.get(plane.client(), key).orElse(null);
    Map<?, ?> ready = r == null ? null : r.condition("Ready");
    return ready == null || !"True".equals(ready.get("status"))
        ? null
        : String.valueOf(ready.get("message"));
  }

  /**
   * The image's root file system unpacked, its entrypoint and its environment; every command run in
   * it talks to the test's control plane through {@code /work/kubeconfig}.
   */
  private record Unpacked(Path rootfs, List<String> entrypoint, Map<String, String> env) {}

  /**
   * The entrypoint as a container runtime starts it: in mount and PID namespaces of its own with
   * /proc mounted (the JVM's launcher finds its libraries through /proc/self/exe), chroot into the
   * root file system as the image's user, with exactly the image's environment.
   */
  private ProcessBuilder chroot(Unpacked image, String name, String... args) throws IOException {
    Path rootfs = image.rootfs();
    Files.createDirectories(rootfs.resolve("proc"));
    List<String> command =
        new ArrayList<>(
            List.of(
                onPath("unshare"),
                "--mount",
                "--pid",
                "--fork",
                "--kill-child",
                "--mount-proc=" + rootfs.resolve("proc"),
                onPath("chroot"),
                "--userspec=65532:65532",
                rootfs.toString()));
    command.addAll(image.entrypoint());
    command.addAll(List.of("--kubeconfig", "/work/kubeconfig"));
    command.addAll(List.of(args));
    ProcessBuilder b =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve(name + ".out").toFile())
            .redirectError(dir.resolve(name + ".err").toFile());
    b.environment().clear();
    b.environment().putAll(image.env());
    return b;
  }

  /** Runs a command of the image to its end; returns what it printed, or fails with its errors. */
  private String inImage(Unpacked image, String... args) throws IOException, InterruptedException {
    String name = "run-" + started.size();
    Process p = chroot(image, name, args).start();
    started.add(p);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as(String.join(" ", args)).isTrue();
    assertThat(p.exitValue()).as(log(name)).isZero();
    return Files.readString(dir.resolve(name + ".out"), UTF_8);
  }

  private Process startInImage(Unpacked image, String... args) throws IOException {
    Process p = chroot(image, "controller", args).start();
    started.add(p);
    return p;
  }

  private String log(String name) {
    try {
      return Files.readString(dir.resolve(name + ".err"), UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /**
   * The absolute path of a command, looked up on this JVM's PATH and then in the system folders
   * (chroot lives in /usr/sbin, which a user's PATH may lack).
   */
  private static String onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/bin:/sbin:/bin";
    for (String d : Pattern.compile(":").splitAsStream(path).toList()) {
      Path p = Path.of(d.isEmpty() ? "." : d, command);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    throw new IllegalStateException(
        command + " is not on the PATH (util-linux and coreutils have it)");
  }

  private static byte[] blob(Path layout, String digest) throws IOException {
    return Files.readAllBytes(
        layout.resolve("blobs").resolve("sha256").resolve(digest.substring("sha256:".length())));
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static String before(String assignment) {
    return assignment.substring(0, assignment.indexOf('='));
  }

  private static String after(String assignment) {
    return assignment.substring(assignment.indexOf('=') + 1);
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8);
    assertThat(p.waitFor()).as(command + ": " + out).isZero();
  }
}
