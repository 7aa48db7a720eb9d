package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.CastResult;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseLockedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.LeaseGrant;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class ReleaseLeaseIT {

  @Test
  void twoConcurrentCastsOfOneReleaseOneProceedsAndTheOtherFailsNamingTheHolder(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Payloads payloads = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    ReleaseSpec spec = ReleaseSpec.of(ns, "app", payloads);
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    Cluster first = new Cluster(plane);
    ReleaseController a =
        first
            .controller()
            .holder("caster-a")
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.RecordSaved saved
                      && saved.status() == ReleaseStatus.PENDING) {
                    holding.countDown();
                    await(proceed);
                  }
                })
            .build();
    Cluster second = new Cluster(plane);
    ReleaseController b = second.controller("caster-b");

    CompletableFuture<CastResult> castA =
        CompletableFuture.supplyAsync(() -> a.cast(spec, payloads));
    assertThat(holding.await(60, TimeUnit.SECONDS)).isTrue();
    ReleaseLockedException locked =
        catchThrowableOfType(ReleaseLockedException.class, () -> b.cast(spec, payloads));
    proceed.countDown();

    assertThat(locked.holder()).isEqualTo("caster-a");
    assertThat(locked.release()).isEqualTo(ns + "/app");
    assertThat(locked)
        .hasMessageStartingWith("release " + ns + "/app is locked by caster-a (renewed ");
    assertThat(locked.expiresAt()).isAfter(Instant.now().minusSeconds(1));
    // The second caster read, and wrote nothing: not even the lease.
    assertThat(second.writes()).isEmpty();
    assertThat(castA.get(60, TimeUnit.SECONDS).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    V1Lease lease =
        new io.kubernetes.client.openapi.apis.CoordinationV1Api(plane.client())
            .readNamespacedLease("capstan.release.v1.app", ns)
            .execute();
    assertThat(lease.getSpec().getHolderIdentity()).isNull(); // given up after the cast
    assertThat(b.cast(spec, payloads).release().revision()).isEqualTo(2);
  }

  @Test
  void aHolderThatDiedWithoutReleasingIsTakenOverOnceItsLeaseExpires(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Payloads payloads = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    ReleaseSpec spec = ReleaseSpec.of(ns, "app", payloads);
    List<ReleaseEvent> events = new CopyOnWriteArrayList<>();
    ReleaseController controller =
        cluster.controller().leaseDuration(Duration.ofSeconds(1)).listener(events::add).build();
    controller.cast(spec, payloads);

    // A caster takes the lease for 2 s, saves its pending revision 2, and dies.
    LeaseGrant dead =
        cluster.store.acquireLease(ns, "app", "dead-caster", Instant.now(), Duration.ofSeconds(2));
    assertThat(dead.takenOver()).isNull();
    Release latest = controller.get(ns, "app").orElseThrow();
    Instant at = Instant.now();
    cluster.store.createRecord(
        new Release(
            latest.id(),
            ns,
            "app",
            2,
            ReleaseStatus.PENDING,
            latest.owns(),
            latest.references(),
            latest.retained(),
            null,
            null,
            null,
            payloads,
            null,
            at,
            at,
            dead.lease()));

    ReleaseLockedException locked =
        catchThrowableOfType(ReleaseLockedException.class, () -> controller.cast(spec, payloads));
    assertThat(locked.holder()).isEqualTo("dead-caster");
    assertThat(locked.expiresAt()).isEqualTo(dead.lease().expiresAt());

    sleepUntil(dead.lease().expiresAt().plusMillis(200));
    events.clear();
    CastResult taken = controller.cast(spec, payloads);

    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.LeaseAcquired)
        .singleElement()
        .satisfies(
            e -> {
              Lease old = ((ReleaseEvent.LeaseAcquired) e).takenOver();
              assertThat(old).isNotNull();
              assertThat(old.holder()).isEqualTo("dead-caster");
              assertThat(old.expiresAt()).isEqualTo(dead.lease().expiresAt());
            });
    assertThat(taken.release().revision()).isEqualTo(3);
    assertThat(controller.history(ns, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(3, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.FAILED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(controller.history(ns, "app").get(1).failure())
        .startsWith("interrupted: the lease of dead-caster expired at ");
    assertThat(latest.revision()).isEqualTo(1);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void sleepUntil(Instant when) {
    long millis = Duration.between(Instant.now(), when).toMillis();
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
