package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.controller.ReleaseKey;
import dev.capstan.controller.ReleaseResource;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.util.PatchUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan controller run} as users run it: the CRD installed by following the command's own
 * advice, then two replicas in processes of their own with leader election; the leader is killed
 * with SIGKILL, and the other takes over and casts the next change. What is exact: who leads, the
 * Lease's transitions, each release's revisions (one per change, none failed, none twice). What
 * depends on timing (how soon the take-over comes) is printed and bounded generously only.
 */
@ControlPlaneTest
class ControllerReplicasIT {
  private static final Path JAR = Path.of("target", "capstan-cli-all.jar").toAbsolutePath();
  private static final Duration SOON = Duration.ofMinutes(2);
  private static final int LEASE_SECONDS = 4;
  private static final int RELEASES = 4;

  @TempDir Path dir;
  private final List<Process> replicas = new ArrayList<>();

  @AfterEach
  void stopTheReplicas() {
    replicas.forEach(Process::destroyForcibly);
  }

  private CliRun cli(ControlPlane plane, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    return CliRun.of(Terminal.none(), k -> null, dir, all.toArray(String[]::new));
  }

  private Process replica(ControlPlane plane, String ns, String identity) throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder b =
        new ProcessBuilder(
                java.toString(),
                "-jar",
                JAR.toString(),
                "--kubeconfig",
                plane.kubeconfig().toString(),
                "controller",
                "run",
                "--leader-elect",
                "--lease-namespace",
                ns,
                "--lease-duration",
                LEASE_SECONDS + "s",
                "--identity",
                identity,
                "--selector",
                "capstan-it-shard=" + ns,
                "--workers",
                "2")
            .redirectOutput(dir.resolve(identity + ".out").toFile())
            .redirectError(dir.resolve(identity + ".err").toFile());
    b.environment().put("CAPSTAN_DAEMON", "false");
    Process p = b.start();
    replicas.add(p);
    return p;
  }

  private static @Nullable V1Lease lease(ControlPlane plane, String ns) throws ApiException {
    try {
      return new CoordinationV1Api(plane.client())
          .readNamespacedLease("capstan-controller", ns)
          .execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static String holder(@Nullable V1Lease lease) {
    return lease == null || lease.getSpec() == null || lease.getSpec().getHolderIdentity() == null
        ? ""
        : lease.getSpec().getHolderIdentity();
  }

  private static Map<String, Object> release(String ns, String name, String value) {
    return Map.of(
        "apiVersion",
        ReleaseResource.API_VERSION,
        "kind",
        ReleaseResource.KIND,
        "metadata",
        Map.of("name", name, "labels", Map.of("capstan-it-shard", ns)),
        "spec",
        Map.of(
            "interval",
            "2s",
            "manifests",
            List.of(
                Map.of(
                    "apiVersion",
                    "v1",
                    "kind",
                    "ConfigMap",
                    "metadata",
                    Map.of("name", name + "-settings"),
                    "data",
                    Map.of("value", value)))));
  }

  /** How many of the shard's Releases are Ready with {@code message}. */
  private static int readyWith(ControlPlane plane, String ns, String message) {
    int n = 0;
    for (int i = 1; i <= RELEASES; i++) {
      var r = ReleaseResource.get(plane.client(), new ReleaseKey(ns, "app-" + i)).orElse(null);
      Map<?, ?> ready = r == null ? null : r.condition("Ready");
      if (ready != null
          && "True".equals(ready.get("status"))
          && message.equals(ready.get("message"))) {
        n++;
      }
    }
    return n;
  }

  @Test
  void theLeaderKilledHandsOverWithinTheLeaseAndEveryChangeIsCastOnce(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    // 1. without the CRD, the controller refuses to start and says how to install it
    CliRun refused = cli(plane, "controller", "run");
    assertThat(refused.code()).isEqualTo(ExitCode.FAILED);
    assertThat(refused.err())
        .startsWith(
            "capstan: the Release CRD (releases.capstan.dev) is not installed in https://127.0.0.1:")
        .contains(
            "; install it with: capstan controller crd > releases.capstan.dev.yaml && capstan"
                + " release cast capstan-crd -n default -f releases.capstan.dev.yaml --yes");
    // 2. the advice, followed
    CliRun crd = cli(plane, "controller", "crd");
    assertThat(crd.code()).isZero();
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

    // 3. two replicas: one leads
    replica(plane, ns, "replica-a");
    replica(plane, ns, "replica-b");
    Await.until("a leader", SOON, () -> lease(plane, ns), l -> holder(l).startsWith("replica-"));
    for (int i = 1; i <= RELEASES; i++) {
      new CustomObjectsApi(plane.client())
          .createNamespacedCustomObject(
              ReleaseResource.GROUP,
              ReleaseResource.VERSION,
              ns,
              ReleaseResource.PLURAL,
              release(ns, "app-" + i, "v1"))
          .execute();
    }
    Await.until(
        "every Release cast by the leader",
        SOON,
        () -> readyWith(plane, ns, "revision 1: 1 created"),
        n -> n == RELEASES);

    // 4. SIGKILL of the JVM that leads now (read just before): it gives nothing up
    V1Lease atKill = java.util.Objects.requireNonNull(lease(plane, ns));
    String leader = holder(atKill);
    String survivor = leader.equals("replica-a") ? "replica-b" : "replica-a";
    Process leaderProcess = replicas.get(leader.equals("replica-a") ? 0 : 1);
    long killedAt = System.nanoTime();
    leaderProcess.destroyForcibly();
    assertThat(leaderProcess.waitFor(30, TimeUnit.SECONDS)).isTrue();
    V1Lease taken =
        Await.until(
            "the survivor leading", SOON, () -> lease(plane, ns), l -> holder(l).equals(survivor));
    Duration handOver = Duration.ofNanos(System.nanoTime() - killedAt);
    System.out.printf(
        "ControllerReplicasIT: %s took over %d ms after the kill (lease %d s)%n",
        survivor, handOver.toMillis(), LEASE_SECONDS);
    assertThat(taken.getSpec().getLeaseTransitions())
        .isEqualTo(atKill.getSpec().getLeaseTransitions() + 1);
    OffsetDateTime lastRenewal = atKill.getSpec().getRenewTime();
    assertThat(taken.getSpec().getAcquireTime()).isAfter(lastRenewal);

    // 5. a change after the kill is cast by the survivor, once per release
    for (int i = 1; i <= RELEASES; i++) {
      String name = "app-" + i;
      PatchUtils.patch(
          Object.class,
          () ->
              new CustomObjectsApi(plane.client())
                  .patchNamespacedCustomObject(
                      ReleaseResource.GROUP,
                      ReleaseResource.VERSION,
                      ns,
                      ReleaseResource.PLURAL,
                      name,
                      new V1Patch(
                          "{\"spec\":{\"manifests\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                              + "\"metadata\":{\"name\":\""
                              + name
                              + "-settings\"},\"data\":{\"value\":\"v2\"}}]}}"))
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          plane.client());
    }
    Await.until(
        "every change cast by the survivor",
        SOON,
        () -> readyWith(plane, ns, "revision 2: 1 updated"),
        n -> n == RELEASES);
    KubernetesStore store = new KubernetesStore(KubeClients.fromKubeconfig(plane.kubeconfig()));
    for (int i = 1; i <= RELEASES; i++) {
      List<String> revisions = new ArrayList<>();
      for (StoredRelease r : store.records(ns, "app-" + i)) {
        revisions.add(r.release().revision() + " " + r.release().status());
      }
      // as stored: a cast leaves the revision before it as recorded (history reads it superseded)
      assertThat(revisions)
          .as("app-" + i)
          .containsExactly("2 " + ReleaseStatus.DEPLOYED, "1 " + ReleaseStatus.DEPLOYED);
    }
    assertThat(Files.readString(dir.resolve(survivor + ".err"), UTF_8))
        .contains("capstan: Release " + ns + "/app-1: revision 2: 1 updated");
  }
}
