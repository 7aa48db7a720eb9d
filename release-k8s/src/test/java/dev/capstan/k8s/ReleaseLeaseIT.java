package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

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
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
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
            .controllerPausingAtPending(
                () -> {
                  holding.countDown();
                  await(proceed);
                })
            .holder("caster-a")
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
    // The second caster wrote nothing, not even the lease: its one write request, the CREATE
    // that takes a free lease, was refused (409), and it read who holds it.
    assertThat(second.writes()).containsExactly(entry("CREATE leases", 1L));
    assertThat(second.requests().log())
        .filteredOn(l -> l.contains(" leases "))
        .containsExactly("CREATE leases " + ns, "GET leases " + ns + "/capstan.release.v1.app");
    assertThat(castA.get(60, TimeUnit.SECONDS).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    ApiException gone =
        catchThrowableOfType(
            ApiException.class,
            () ->
                new io.kubernetes.client.openapi.apis.CoordinationV1Api(plane.client())
                    .readNamespacedLease("capstan.release.v1.app", ns)
                    .execute());
    assertThat(gone.getCode()).isEqualTo(404); // given up after the cast: deleted
    assertThat(b.cast(spec, payloads).release().revision()).isEqualTo(2);
  }

  @Test
  void theLeaseIsTakenWithOneCreateAndGivenUpWithOneDeleteConditionedOnTheHoldersLastWrite(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Duration ttl = Duration.ofSeconds(30);
    CoordinationV1Api coordination = new CoordinationV1Api(plane.client());
    cluster.requests().reset();

    cluster.store.acquireLease(ns, "app", "caster-a", Instant.now(), ttl);
    cluster.store.renewLease(ns, "app", "caster-a", Instant.now(), ttl);
    cluster.store.releaseLease(ns, "app", "caster-a", false);

    // The renewal is a background request (counted apart, since how many an operation makes
    // depends on how long it runs): a GET and an UPDATE.
    assertThat(cluster.requests().log())
        .containsExactly("CREATE leases " + ns, "DELETE leases " + ns + "/capstan.release.v1.app");
    assertThat(cluster.requests().backgroundCounts())
        .containsExactly(entry("GET leases", 1L), entry("UPDATE leases", 1L));

    // A Lease without a holder (as versions before this one left it): taken over by an UPDATE.
    coordination
        .createNamespacedLease(
            ns,
            new V1Lease()
                .metadata(new V1ObjectMeta().name("capstan.release.v1.app"))
                .spec(new V1LeaseSpec().leaseTransitions(4)))
        .execute();
    cluster.requests().reset();
    LeaseGrant b = cluster.store.acquireLease(ns, "app", "caster-b", Instant.now(), ttl);
    assertThat(b.takenOver()).isNull();
    assertThat(cluster.requests().log())
        .containsExactly(
            "CREATE leases " + ns,
            "GET leases " + ns + "/capstan.release.v1.app",
            "UPDATE leases " + ns + "/capstan.release.v1.app");
    assertThat(
            coordination
                .readNamespacedLease("capstan.release.v1.app", ns)
                .execute()
                .getSpec()
                .getLeaseTransitions())
        .isEqualTo(5);

    // caster-b stalls, its Lease expires and caster-c takes it over: caster-b's give-up deletes
    // nothing (its DELETE is refused, and the Lease it reads is caster-c's).
    Instant later = Instant.now().plus(ttl).plusSeconds(1);
    LeaseGrant c = cluster.store.acquireLease(ns, "app", "caster-c", later, ttl);
    assertThat(c.takenOver()).isNotNull();
    cluster.requests().reset();
    cluster.store.releaseLease(ns, "app", "caster-b", false);
    assertThat(cluster.requests().log())
        .containsExactly(
            "DELETE leases " + ns + "/capstan.release.v1.app",
            "GET leases " + ns + "/capstan.release.v1.app");
    assertThat(
            coordination
                .readNamespacedLease("capstan.release.v1.app", ns)
                .execute()
                .getSpec()
                .getHolderIdentity())
        .isEqualTo("caster-c");
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
