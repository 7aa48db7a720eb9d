package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
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
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Jobs with {@code ttlSecondsAfterFinished: 0}: kwok completes their pods at once, the Job
 * controller marks them Complete and the TTL controller deletes them, within about a second, often
 * before Capstan's health LIST or between that LIST and its WATCH. Every cast must be healthy (a
 * Job its TTL removed after it completed is done), never time out, however the deletion falls. The
 * rounds test runs {@value #DEFAULT_ROUNDS} casts, or {@code -Dcapstan.ttlJobs.rounds=N}.
 */
@ControlPlaneTest
class TtlJobsIT {
  static final int DEFAULT_ROUNDS = 5;
  private static final int ROUNDS = Integer.getInteger("capstan.ttlJobs.rounds", DEFAULT_ROUNDS);
  private static final Duration PATIENT = Duration.ofMinutes(3);

  static Manifest job(String ns, String name) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            "batch/v1",
            "kind",
            "Job",
            "metadata",
            Map.of("name", name, "namespace", ns),
            "spec",
            Map.of(
                "ttlSecondsAfterFinished",
                0,
                "backoffLimit",
                0,
                "template",
                Map.of(
                    "spec",
                    Map.of(
                        "restartPolicy",
                        "Never",
                        "containers",
                        List.of(Map.of("name", "once", "image", "registry.example/once:1")))))));
  }

  private static boolean gone(BatchV1Api batch, String ns, String... names) throws Exception {
    List<String> left =
        batch.listNamespacedJob(ns).execute().getItems().stream()
            .map(j -> java.util.Objects.requireNonNull(j.getMetadata()).getName())
            .filter(n -> List.of(names).contains(n))
            .toList();
    return left.isEmpty();
  }

  @Test
  void everyRoundOfACastWithTwoTtlZeroJobsIsHealthyAndNeverWaitsOutItsTimeout(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    BatchV1Api batch = new BatchV1Api(cluster.client());
    for (int round = 1; round <= ROUNDS; round++) {
      String a = "r" + round + "-a";
      String b = "r" + round + "-b";
      Payloads payloads = Payloads.of(job(ns, a), job(ns, b));
      ReleaseSpec spec =
          ReleaseSpec.of(ns, "ttl-" + round, payloads)
              .withOptions(ReleaseOptions.defaults().withTimeout(PATIENT));
      cluster.requests().reset();
      long started = System.nanoTime();

      CastResult result = controller.cast(spec, payloads);

      long millis = (System.nanoTime() - started) / 1_000_000;
      Map<String, Long> jobRequests = new java.util.TreeMap<>(cluster.requests().counts());
      jobRequests.keySet().removeIf(k -> !k.endsWith(" jobs") && !k.endsWith(" pods"));
      System.out.printf(
          "ttl round %d/%d: %s in %d ms, %s%n",
          round, ROUNDS, result.release().status().id(), millis, jobRequests);
      assertThat(result.release().status()).as("round %d", round).isEqualTo(ReleaseStatus.DEPLOYED);
      // the TTL controller did delete them: the case this test is about
      int r = round;
      Await.until(
          "round " + r + "'s Jobs deleted by their TTL",
          PATIENT,
          () -> gone(batch, ns, a, b) ? true : null);
    }
  }

  @Test
  void aJobItsTtlDeletedBeforeTheWaitBeganIsFollowedFromItsWriteAndIsHealthy(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Manifest job = job(ns, "early");
    cluster.orchestrator.apply(
        job, OwnershipStamp.of(new ReleaseIdentity(ns, "app", "id-1"), 1, ContentHash.of(job)));
    BatchV1Api batch = new BatchV1Api(cluster.client());
    Await.until(
        "the Job completed and deleted by its TTL",
        PATIENT,
        () -> gone(batch, ns, "early") ? true : null);
    ResourceRef ref = ResourceRef.of(Kind.JOB, ns, "early");

    cluster.requests().reset();
    Readiness readiness = cluster.orchestrator.awaitReady(List.of(ref), PATIENT);

    assertThat(readiness).isEqualTo(Readiness.ready());
    // the LIST finds nothing; its events since the write (Complete, then DELETED) are replayed
    // (the pods' WATCH, opened for a Job in progress, may not have been sent before the verdict)
    assertThat(cluster.requests().counts())
        .containsEntry("LIST jobs", 1L)
        .containsEntry("WATCH jobs", 1L);
    assertThat(cluster.requests().counts().keySet())
        .isSubsetOf("LIST jobs", "WATCH jobs", "WATCH pods");

    // an adapter that did not write it cannot know what became of it
    Cluster other = new Cluster(plane);
    assertThat(other.orchestrator.awaitReady(List.of(ref), PATIENT))
        .isEqualTo(Readiness.failed(ref, "Job " + ns + "/early: not found"));
  }
}
