package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.VersionApi;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Nothing a cast wrote is forgotten when the API server goes away for longer than the retry budget
 * (30 s of pauses), as a SIGTERM-stopped kube-apiserver does (it drains, then is down until
 * restarted): the first install cannot record its failure, keeps its lease with its intent instead
 * of deleting it, and the next cast records the interrupted attempt failed and converges without
 * adopt, writing each object once.
 */
@ControlPlaneTest
class ApiServerOutageIT {
  private static final int OBJECTS = 40;
  private static final int WRITTEN_BEFORE = 10;
  private static final Duration OUTAGE = Duration.ofSeconds(70);

  private static Payloads payloads(String ns) {
    List<ConfigMapSpec> maps = new ArrayList<>();
    for (int i = 0; i < OBJECTS; i++) {
      maps.add(ConfigMapSpec.of(ns, String.format("part-%02d", i), Map.of("index", "" + i)));
    }
    return Payloads.of(maps.toArray(ConfigMapSpec[]::new));
  }

  @Test
  void aFirstInstallCutShortByAnOutageIsRecordedFailedByTheNextCastWhichNeedsNoAdopt(
      ControlPlane plane, TestNamespace tns) throws Exception {
    assumeTrue(plane.startedHere(), "restarts the API server of a control plane this run started");
    String ns = tns.name();
    Payloads payloads = payloads(ns);
    ReleaseSpec spec = ReleaseSpec.of(ns, "app", payloads);
    Cluster cluster = new Cluster(plane);
    AtomicInteger done = new AtomicInteger();
    CompletableFuture<Duration> outage = new CompletableFuture<>();
    ReleaseController first =
        cluster
            .controller()
            .holder("first-caster")
            .parallelism(1)
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Done d
                      && d.action() != Action.REFERENCE
                      && done.incrementAndGet() == WRITTEN_BEFORE) {
                    Thread restart =
                        new Thread(
                            () -> {
                              try {
                                outage.complete(plane.restartApiServer(OUTAGE));
                              } catch (RuntimeException | Error x) {
                                outage.completeExceptionally(x);
                              }
                            },
                            "api-server-outage");
                    restart.setDaemon(true);
                    restart.start();
                    awaitUnreachable(plane);
                  }
                })
            .build();

    assertThatThrownBy(() -> first.cast(spec, payloads))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED));
    Duration down = outage.get(7, TimeUnit.MINUTES);
    assertThat(down).isGreaterThanOrEqualTo(OUTAGE);

    // no record could be written: the lease is still there, naming the cast and its objects
    assertThat(cluster.store.latestRecord(ns, "app")).isEmpty();
    V1Lease lease =
        new CoordinationV1Api(plane.client())
            .readNamespacedLease("capstan.release.v1.app", ns)
            .execute();
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("first-caster");
    assertThat(lease.getMetadata().getAnnotations().get("capstan.dev/lease-intent"))
        .contains("\"operation\":\"cast\"")
        .contains("\"ConfigMap/" + ns + "/part-39\"");
    long written = stamped(cluster, ns);
    assertThat(written).isGreaterThanOrEqualTo(WRITTEN_BEFORE).isLessThan(OBJECTS);

    // the next cast, without adopt, takes the lease over and records what it left
    Cluster next = new Cluster(plane);
    ReleaseController caster =
        next.controller().holder("next-caster").waitForLease(Duration.ofSeconds(60)).build();
    next.requests().reset();
    CastResult r = caster.cast(spec, payloads);

    assertThat(r.plan().changes(Action.CONFLICT)).isEmpty();
    assertThat(r.plan().changes(Action.UPDATE)).hasSize((int) written);
    assertThat(r.plan().changes(Action.CREATE)).hasSize(OBJECTS - (int) written);
    assertThat(next.writes()).containsEntry("PATCH configmaps", (long) OBJECTS);
    List<Release> history = caster.history(ns, "app");
    assertThat(history)
        .extracting(Release::revision, Release::status)
        .containsExactly(tuple(2, ReleaseStatus.DEPLOYED), tuple(1, ReleaseStatus.FAILED));
    assertThat(history.get(1).failure())
        .startsWith("interrupted: the lease of first-caster expired at ");
    assertThat(history.get(1).id()).isEqualTo(history.get(0).id());
    assertThat(stamped(cluster, ns)).isEqualTo(OBJECTS);

    next.requests().reset();
    assertThat(caster.plan(spec, payloads).changesNothing()).isTrue();
  }

  /** Until a fresh client's request fails: the API server stopped answering. */
  private static void awaitUnreachable(ControlPlane plane) {
    VersionApi version = new VersionApi(plane.newClient(Duration.ofSeconds(2)));
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        version.getCode().execute();
        Thread.sleep(100);
      } catch (ApiException e) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new IllegalStateException("the API server kept answering 60 s after SIGTERM");
  }

  /** How many ConfigMaps of the namespace carry the release's stamp. */
  private static long stamped(Cluster cluster, String ns) throws ApiException {
    List<V1ConfigMap> items =
        cluster
            .core
            .listNamespacedConfigMap(ns)
            .labelSelector("capstan.dev/release-name=app")
            .execute()
            .getItems();
    return items.size();
  }
}
