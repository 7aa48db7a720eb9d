package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceQuota;
import io.kubernetes.client.openapi.models.V1ResourceQuotaSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Readiness fails fast with the reason. Every wait here has minutes to spare: a verdict reached by
 * timing out would say "not ready after", so the reasons asserted prove the wait ended early.
 */
@ControlPlaneTest
class ReadinessIT {
  private static final Duration PATIENT = Duration.ofMinutes(5);

  private static ServiceSpec web(String ns, String image) {
    return ServiceSpec.builder(ns, "web").image(image).replicas(2).build();
  }

  private static void apply(Cluster cluster, ServiceSpec spec) {
    Manifest deployment = spec.render().get(0);
    cluster.orchestrator.apply(
        deployment,
        OwnershipStamp.of(
            new ReleaseIdentity(spec.namespace(), "app", "id-1"), 1, ContentHash.of(deployment)));
  }

  private static V1Pod probePod() {
    return new V1Pod()
        .metadata(new V1ObjectMeta().name("quota-probe"))
        .spec(
            new V1PodSpec()
                .overhead(null) // the model starts with an empty map, which admission refuses
                .containers(List.of(new V1Container().name("c").image("registry.example/c:1"))));
  }

  private static List<ResourceRef> web(String ns) {
    return List.of(ResourceRef.of(Kind.DEPLOYMENT, ns, "web"));
  }

  @Test
  void aRolloutThatCompletesIsReadyAndIsSeenThroughAWatch(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    // held: its pods become Ready only once the test has seen the waiter's WATCHes open, so the
    // LIST never finds the rollout done already
    apply(cluster, web(ns, ControlPlane.HELD_IMAGE));

    cluster.requests().reset();
    AtomicInteger releasedSoFar = new AtomicInteger();
    CompletableFuture<Integer> released =
        CompletableFuture.supplyAsync(
            () -> {
              Await.until(
                  "the WATCHes of deployments and pods",
                  PATIENT,
                  () ->
                      (cluster.requests().count("WATCH deployments") == 1
                              && cluster.requests().count("WATCH pods") == 1)
                          ? true
                          : null);
              return Await.until(
                  "both held pods released",
                  PATIENT,
                  () -> {
                    int n =
                        releasedSoFar.addAndGet(
                            plane.releaseHeldPods(ns, "registry.example/web:1"));
                    return n == 2 ? n : null;
                  });
            });
    Readiness readiness = cluster.orchestrator.awaitReady(web(ns), PATIENT);

    assertThat(released.join()).isEqualTo(2);
    assertThat(readiness).isEqualTo(Readiness.ready());
    // judged from the Deployment's status; its pods are watched for a reason to fail early, its
    // ReplicaSets only once a pod cannot become ready; no polling
    assertThat(cluster.requests().counts())
        .containsExactly(
            Map.entry("LIST deployments", 1L),
            Map.entry("WATCH deployments", 1L),
            Map.entry("WATCH pods", 1L));

    cluster.requests().reset();
    assertThat(cluster.orchestrator.awaitReady(web(ns), PATIENT)).isEqualTo(Readiness.ready());
    assertThat(cluster.requests().counts()).containsExactly(Map.entry("LIST deployments", 1L));
  }

  @Test
  void aNeverReadyImageFailsTheCastFastWithImagePullBackOff(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads payloads = Payloads.of(web(ns, ControlPlane.NEVER_READY_IMAGE));
    ReleaseSpec spec =
        ReleaseSpec.of(ns, "app", payloads)
            .withOptions(dev.capstan.release.model.ReleaseOptions.defaults().withTimeout(PATIENT));

    cluster.requests().reset();
    CastFailedException failed =
        catchThrowableOfType(CastFailedException.class, () -> controller.cast(spec, payloads));

    assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.result().release().failure())
        .startsWith(
            "verify failed: apps/Deployment/"
                + ns
                + "/web is not ready: Deployment "
                + ns
                + "/web: pod web-")
        .contains(": container web: ImagePullBackOff");
    // the failing pod is told apart from older revisions' by the ReplicaSets: watched from then on
    assertThat(cluster.requests().count("WATCH pods")).isEqualTo(1);
    assertThat(cluster.requests().count("WATCH replicasets")).isEqualTo(1);
  }

  @Test
  void podsThatCannotBeCreatedFailFastWithFailedCreate(ControlPlane plane, TestNamespace tns)
      throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    cluster
        .core
        .createNamespacedResourceQuota(
            ns,
            new V1ResourceQuota()
                .metadata(new V1ObjectMeta().name("no-pods"))
                .spec(new V1ResourceQuotaSpec().hard(Map.of("pods", new Quantity("0")))))
        .execute();
    // The quota admission reads quotas from its own cache: until it has this one, a pod is
    // admitted. A dry-run pod goes through admission (and is never stored): refused, the quota
    // holds.
    Await.until(
        "the quota to refuse a pod in " + ns,
        Duration.ofSeconds(60),
        () -> {
          try {
            cluster.core.createNamespacedPod(ns, probePod()).dryRun("All").execute();
            return "admitted";
          } catch (ApiException e) {
            return e.getCode() + " " + e.getResponseBody();
          }
        },
        answer -> answer.startsWith("403 ") && answer.contains("no-pods"));
    apply(cluster, web(ns, "registry.example/web:1"));

    Readiness readiness = cluster.orchestrator.awaitReady(web(ns), PATIENT);

    assertThat(readiness).isInstanceOf(Readiness.Failed.class);
    assertThat(((Readiness.Failed) readiness).reason())
        .startsWith("Deployment " + ns + "/web: FailedCreate: ")
        .contains("forbidden")
        .contains("no-pods");
  }

  @Test
  void unschedulablePodsAreWaitedForAndTheTimeOutNamesThem(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    apply(
        cluster,
        ServiceSpec.builder(ns, "web")
            .image("registry.example/web:1")
            .resources(new ServiceSpec.Resources("1000", null, null, null))
            .build());

    // an unschedulable pod may yet be scheduled (a node added, a claim bound): no failure, a
    // time-out that says why
    Readiness readiness = cluster.orchestrator.awaitReady(web(ns), Duration.ofSeconds(15));

    assertThat(readiness).isInstanceOf(Readiness.TimedOut.class);
    assertThat(readiness.describe())
        .startsWith("not ready after 15s: Deployment " + ns + "/web: ")
        .containsPattern("; pod web-[a-z0-9-]+: Unschedulable: 0/[0-9]+ nodes are available: ")
        .contains("Insufficient cpu");
  }

  @Test
  void podsOfTheRevisionBeingReplacedDoNotFailTheRollout(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    apply(cluster, web(ns, ControlPlane.NEVER_READY_IMAGE));
    assertThat(cluster.orchestrator.awaitReady(web(ns), PATIENT))
        .isInstanceOf(Readiness.Failed.class);

    apply(cluster, web(ns, "registry.example/web:2"));

    assertThat(cluster.orchestrator.awaitReady(web(ns), PATIENT)).isEqualTo(Readiness.ready());
  }

  @Test
  void aMissingDeploymentFailsAtOnce(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();

    assertThat(cluster.orchestrator.awaitReady(web(ns), PATIENT))
        .isEqualTo(
            Readiness.failed(
                ResourceRef.of(Kind.DEPLOYMENT, ns, "web"),
                "Deployment " + ns + "/web: not found"));
  }
}
