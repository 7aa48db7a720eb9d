package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan release cast --supersede} on a real control plane: a cast waiting for a
 * LoadBalancer Service that never gets an address (no load balancer controller runs here) holds the
 * lease for its whole timeout; a second cast with {@code --supersede} asks it to yield, it stops
 * its wait with its revision recorded failed as superseded, and the second cast takes the lease and
 * casts the fix.
 *
 * <p>The exact facts (exit codes, what each says, the history, the Service as the fix left it, no
 * request left) are asserted apart from the timing fact: how long the superseding cast took,
 * printed and bounded by a generous 60 s, where the wait it cut would last 10 minutes.
 */
@ControlPlaneTest
class SupersedeCliOnKubernetesIT {
  private static final Duration GENEROUS = Duration.ofSeconds(60);

  @TempDir Path dir;

  private CliRun run(ControlPlane plane, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", plane.kubeconfig().toString()));
    all.addAll(List.of(args));
    Map<String, @Nullable String> env = Map.of();
    return CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
  }

  @Test
  void aCastWithSupersedeStopsTheDoomedWaitOfTheCastHoldingTheLeaseAndCastsTheFix(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Files.writeString(
        dir.resolve("doomed.yaml"),
        """
        apiVersion: v1
        kind: Service
        metadata: {name: edge}
        spec: {type: LoadBalancer, selector: {app: edge}, ports: [{name: http, port: 80}]}
        """);
    Files.writeString(
        dir.resolve("fix.yaml"),
        """
        apiVersion: v1
        kind: Service
        metadata: {name: edge}
        spec: {type: ClusterIP, selector: {app: edge}, ports: [{name: http, port: 80}]}
        """);
    CompletableFuture<CliRun> doomed =
        CompletableFuture.supplyAsync(
            () ->
                run(
                    plane,
                    "release",
                    "cast",
                    "edge",
                    "-n",
                    ns,
                    "-f",
                    "doomed.yaml",
                    "--yes",
                    "--timeout",
                    "10m"));
    CoordinationV1Api leases = new CoordinationV1Api(plane.client());
    awaitLease(leases, ns, doomed);

    long start = System.nanoTime();
    CliRun fix =
        run(plane, "release", "cast", "edge", "-n", ns, "-f", "fix.yaml", "--yes", "--supersede");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    CliRun stopped = doomed.get(GENEROUS.toSeconds(), TimeUnit.SECONDS);

    assertThat(fix.code()).as(fix.err()).isEqualTo(ExitCode.OK);
    assertThat(fix.err())
        .containsPattern(
            "capstan: "
                + ns
                + "/edge: asked \\S+/pid \\d+/\\p{XDigit}+, which holds the lease,"
                + " to yield it to this cast\n");
    assertThat(stopped.code()).as(stopped.err()).isEqualTo(ExitCode.FAILED);
    assertThat(stopped.err())
        .contains(
            "superseded by a newer revision of the release: stopped waiting for 1 object(s) to be"
                + " healthy (Service/"
                + ns
                + "/edge); nothing more was written, and the newer"
                + " revision is cast next");
    CliRun history = run(plane, "release", "history", "edge", "-n", ns, "-o", "json");
    com.fasterxml.jackson.databind.JsonNode revisions =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(history.out());
    assertThat(revisions).hasSize(2);
    assertThat(revisions.get(0).get("revision").asInt()).isEqualTo(2);
    assertThat(revisions.get(0).get("status").asText()).isEqualTo("deployed");
    assertThat(revisions.get(1).get("revision").asInt()).isEqualTo(1);
    assertThat(revisions.get(1).get("status").asText()).isEqualTo("failed");
    assertThat(
            new io.kubernetes.client.openapi.apis.CoreV1Api(plane.client())
                .readNamespacedService("edge", ns)
                .execute()
                .getSpec()
                .getType())
        .isEqualTo("ClusterIP");
    // the request was withdrawn once the fix held the lease; the lease was given up after it
    assertThat(leases.listNamespacedLease(ns).execute().getItems()).isEmpty();
    System.out.printf(
        "SupersedeCliOnKubernetesIT: the superseding cast took %d ms%n", took.toMillis());
    assertThat(took).isLessThan(GENEROUS);
  }

  /** Waits until the doomed cast holds the release's lease (it is then writing or waiting). */
  private static void awaitLease(
      CoordinationV1Api leases, String ns, CompletableFuture<CliRun> doomed) throws Exception {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(doomed).as("the doomed cast is still casting").isNotDone();
      try {
        leases.readNamespacedLease("capstan.release.v1.edge", ns).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the doomed cast never took the lease");
  }
}
