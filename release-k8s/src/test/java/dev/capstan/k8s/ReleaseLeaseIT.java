package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.result.CastResult;
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
import java.util.concurrent.atomic.AtomicReference;
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
            .controllerPausingBeforeTheFirstWrite(
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
  void theLeaseIsTakenWithOneCreateRenewedWithOneUpdateAndGivenUpWithOneDelete(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Duration ttl = Duration.ofSeconds(30);
    CoordinationV1Api coordination = new CoordinationV1Api(plane.client());
    cluster.requests().reset();

    LeaseGrant a = cluster.store.acquireLease(ns, "app", "caster-a", Instant.now(), ttl);
    cluster.store.renewLease(ns, "app", "caster-a", a.version(), Instant.now(), ttl);
    cluster.store.releaseLease(ns, "app", "caster-a", false);

    // The renewal is a background request (counted apart, since how many an operation makes
    // depends on how long it runs): one UPDATE on the resourceVersion of the CREATE, read from
    // nowhere.
    assertThat(cluster.requests().log())
        .containsExactly("CREATE leases " + ns, "DELETE leases " + ns + "/capstan.release.v1.app");
    assertThat(cluster.requests().backgroundLog())
        .containsExactly("UPDATE leases " + ns + "/capstan.release.v1.app");

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
  void theIntentIsAnAnnotationOfTheLeaseThatRenewalsCarryAtNoExtraRequest(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    Cluster elsewhere = new Cluster(plane); // another process: it never wrote the Lease
    String ns = tns.name();
    String path = ns + "/capstan.release.v1.app";
    Duration ttl = Duration.ofSeconds(30);
    CoordinationV1Api coordination = new CoordinationV1Api(plane.client());
    Instant t0 = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    cluster.requests().reset();

    // an intent longer than a store must keep is refused before any request
    String tooLong = "x".repeat(dev.capstan.release.port.Store.MAX_LEASE_INTENT + 1);
    assertThat(
            catchThrowableOfType(
                IllegalArgumentException.class,
                () -> cluster.store.acquireLease(ns, "app", "caster-a", tooLong, t0, ttl)))
        .hasMessage("a lease intent has at most 65536 characters; this one has 65537");
    assertThat(cluster.requests().log()).isEmpty();

    // taken: the intent is in the one CREATE
    LeaseGrant a = cluster.store.acquireLease(ns, "app", "caster-a", "cast 2", t0, ttl);
    assertThat(cluster.requests().log()).containsExactly("CREATE leases " + ns);
    assertThat(annotations(coordination, ns))
        .containsExactly(entry(ReleaseLeases.INTENT, "cast 2"));

    // renewed with one UPDATE (a GET first by a store that did not write it): the intent stays
    String renewed =
        cluster.store.renewLease(ns, "app", "caster-a", a.version(), t0.plusSeconds(10), ttl);
    assertThat(cluster.requests().backgroundLog()).containsExactly("UPDATE leases " + path);
    assertThat(annotations(coordination, ns))
        .containsExactly(entry(ReleaseLeases.INTENT, "cast 2"));
    elsewhere.requests().reset();
    elsewhere.store.renewLease(ns, "app", "caster-a", renewed, t0.plusSeconds(20), ttl);
    assertThat(elsewhere.requests().backgroundLog())
        .containsExactly("GET leases " + path, "UPDATE leases " + path);
    assertThat(annotations(coordination, ns))
        .containsExactly(entry(ReleaseLeases.INTENT, "cast 2"));

    // expired and taken over: the refused CREATE, a GET and an UPDATE hand the intent over and
    // replace it
    Instant expiry = t0.plusSeconds(20).plus(ttl);
    cluster.requests().reset();
    LeaseGrant b = cluster.store.acquireLease(ns, "app", "caster-b", "uninstall", expiry, ttl);
    assertThat(b.takenOver()).isEqualTo(new Lease("caster-a", t0, expiry));
    assertThat(b.takenOverIntent()).isEqualTo("cast 2");
    assertThat(cluster.requests().log())
        .containsExactly("CREATE leases " + ns, "GET leases " + path, "UPDATE leases " + path);
    assertThat(annotations(coordination, ns))
        .containsExactly(entry(ReleaseLeases.INTENT, "uninstall"));

    // taken again by its holder without an intent: nothing handed over, the annotation removed
    LeaseGrant again =
        cluster.store.acquireLease(ns, "app", "caster-b", expiry.plusSeconds(1), ttl);
    assertThat(again.takenOver()).isNull();
    assertThat(again.takenOverIntent()).isNull();
    assertThat(annotations(coordination, ns)).isEmpty();

    // given up: one DELETE, the intent gone with the Lease
    cluster.store.acquireLease(ns, "app", "caster-b", "cast 3", expiry.plusSeconds(2), ttl);
    cluster.requests().reset();
    cluster.store.releaseLease(ns, "app", "caster-b", false);
    assertThat(cluster.requests().log()).containsExactly("DELETE leases " + path);
    assertThat(coordination.listNamespacedLease(ns).execute().getItems()).isEmpty();
  }

  private static Map<String, String> annotations(CoordinationV1Api coordination, String ns)
      throws ApiException {
    Map<String, String> annotations =
        coordination
            .readNamespacedLease("capstan.release.v1.app", ns)
            .execute()
            .getMetadata()
            .getAnnotations();
    return annotations == null ? Map.of() : annotations;
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

  @Test
  void aRenewalLongAfterTheExpiryKeepsALeaseNobodyTookWithOneConditionedUpdate(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Duration ttl = Duration.ofSeconds(2);
    CoordinationV1Api coordination = new CoordinationV1Api(plane.client());
    Instant t0 = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
    LeaseGrant a = cluster.store.acquireLease(ns, "app", "caster-a", t0, ttl);
    cluster.requests().reset();

    // caster-a stalled for 10 s, 8 s past its Lease's expiry, and nobody wanted the release: its
    // renewal, an UPDATE on the resourceVersion of its own last write (no read first), goes through
    String renewed =
        cluster.store.renewLease(ns, "app", "caster-a", a.version(), t0.plusSeconds(10), ttl);

    assertThat(cluster.requests().log()).isEmpty(); // a renewal is a background request
    assertThat(cluster.requests().backgroundLog())
        .containsExactly("UPDATE leases " + ns + "/capstan.release.v1.app");
    V1Lease lease = coordination.readNamespacedLease("capstan.release.v1.app", ns).execute();
    assertThat(lease.getMetadata().getResourceVersion())
        .isEqualTo(renewed)
        .isNotEqualTo(a.version());
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("caster-a");
    assertThat(lease.getSpec().getRenewTime().toInstant()).isEqualTo(t0.plusSeconds(10));

    // once that lapses too, caster-b takes it over: caster-a's next renewal is refused, naming it
    LeaseGrant b = cluster.store.acquireLease(ns, "app", "caster-b", t0.plusSeconds(13), ttl);
    assertThat(b.takenOver()).isNotNull();
    cluster.requests().reset();
    ReleaseLockedException lost =
        catchThrowableOfType(
            ReleaseLockedException.class,
            () ->
                cluster.store.renewLease(ns, "app", "caster-a", renewed, t0.plusSeconds(14), ttl));
    assertThat(lost.holder()).isEqualTo("caster-b");
    assertThat(cluster.requests().backgroundLog())
        .containsExactly(
            "UPDATE leases " + ns + "/capstan.release.v1.app",
            "GET leases " + ns + "/capstan.release.v1.app");
    assertThat(
            coordination
                .readNamespacedLease("capstan.release.v1.app", ns)
                .execute()
                .getSpec()
                .getHolderIdentity())
        .isEqualTo("caster-b");
  }

  @Test
  void aCastWhoseRenewerStalledPastTheLeaseFinishesWhenNobodyElseWantedTheRelease(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Payloads payloads =
        Payloads.of(
            ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")),
            dev.capstan.release.model.SecretSpec.of(ns, "creds", Map.of("token", "t1")));
    ReleaseSpec spec = ReleaseSpec.of(ns, "app", payloads);
    Cluster cluster = new Cluster(plane);
    CountDownLatch resumed = new CountDownLatch(1);
    List<String> renewals = new CopyOnWriteArrayList<>();
    List<ReleaseEvent> events = new CopyOnWriteArrayList<>();
    // the renewer thread's renewals stall until the cast resumes (a starved renewer), then go on
    StallingStore store = new StallingStore(cluster.store, resumed, renewals);
    ReleaseController a =
        ReleaseController.builder(cluster.orchestrator, store)
            .holder("caster-a")
            .leaseDuration(Duration.ofSeconds(2))
            .leaseRenewal(Duration.ofSeconds(1))
            .listener(
                e -> {
                  events.add(e);
                  if (e instanceof ReleaseEvent.RecordSaved saved
                      && saved.status() == ReleaseStatus.PENDING) {
                    sleep(Duration.ofSeconds(5)); // 3 s past the lease: the cast is held too
                    resumed.countDown();
                  }
                })
            .build();

    CastResult result = a.cast(spec, payloads);

    assertThat(result.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.core.readNamespacedSecret("creds", ns).execute()).isNotNull();
    // the renewer never got through: the cast renewed the lease itself before its next write
    assertThat(renewals).contains("caster thread");
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.Warning)
        .extracting(ReleaseEvent::describe)
        .anySatisfy(
            w ->
                assertThat(w)
                    .startsWith("warning: renewed it late: the operation lease expired at "));
  }

  @Test
  void aCastStalledPastTheLeaseWhileAnotherCasterTookTheReleaseOverWritesNothingMore(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Payloads v1 = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    Payloads v2 =
        Payloads.of(
            ConfigMapSpec.of(ns, "settings", Map.of("color", "green")),
            dev.capstan.release.model.SecretSpec.of(ns, "creds", Map.of("token", "t1")));
    Cluster setup = new Cluster(plane);
    setup.controller("caster-0").cast(ReleaseSpec.of(ns, "app", v1), v1);
    Cluster first = new Cluster(plane);
    Cluster second = new Cluster(plane);
    ReleaseController b =
        ReleaseController.builder(second.orchestrator, second.store)
            .holder("caster-b")
            .waitForLease(Duration.ofSeconds(30))
            .build();
    CountDownLatch resumed = new CountDownLatch(1);
    List<String> renewals = new CopyOnWriteArrayList<>();
    AtomicReference<CastResult> taken = new AtomicReference<>();
    AtomicReference<Map<String, Long>> writesBeforeResume = new AtomicReference<>();
    ReleaseController a =
        ReleaseController.builder(
                first.orchestrator, new StallingStore(first.store, resumed, renewals))
            .holder("caster-a")
            .leaseDuration(Duration.ofSeconds(2))
            .leaseRenewal(Duration.ofSeconds(1))
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Done done && done.ref().name().equals("settings")) {
                    // caster-a wrote its first batch and stalls; caster-b queues, takes the
                    // expired lease over and casts the release
                    taken.set(b.cast(ReleaseSpec.of(ns, "app", v1), v1));
                    writesBeforeResume.set(first.writes());
                    resumed.countDown();
                  }
                })
            .build();

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class, () -> a.cast(ReleaseSpec.of(ns, "app", v2), v2));

    assertThat(failed.getCause())
        .hasMessageStartingWith("lost the operation lease on " + ns + "/app: ")
        .hasMessageEndingWith("; stopped before the next write");
    assertThat(java.util.Objects.requireNonNull(taken.get()).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    // after resuming, caster-a applied no object (an apply is a PATCH): its only requests were on
    // the Lease (a refused renewal, the give-up) and its failure record (refused: caster-b had
    // recorded the attempt failed)
    assertThat(patches(first.writes()))
        .isEqualTo(patches(java.util.Objects.requireNonNull(writesBeforeResume.get())));
    assertThat(patches(first.writes())).containsExactly(entry("PATCH configmaps", 1L));
    ApiException gone =
        catchThrowableOfType(
            ApiException.class, () -> first.core.readNamespacedSecret("creds", ns).execute());
    assertThat(gone.getCode()).isEqualTo(404);
    assertThat(first.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsEntry("color", "blue");
  }

  private static Map<String, Long> patches(Map<String, Long> writes) {
    Map<String, Long> out = new java.util.TreeMap<>(writes);
    out.keySet().removeIf(k -> !k.startsWith("PATCH "));
    return out;
  }

  /** Sleeps, as a stalled process would. */
  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * A store on which the lease keeper's own renewer never gets through (a renewer starved of CPU):
   * its renewals wait until {@code resumed}, then fail; the caster thread's go to the real store.
   * Notes which thread renewed.
   */
  private static final class StallingStore implements dev.capstan.release.port.Store {
    private final dev.capstan.release.port.Store delegate;
    private final CountDownLatch resumed;
    private final List<String> renewals;

    StallingStore(
        dev.capstan.release.port.Store delegate, CountDownLatch resumed, List<String> renewals) {
      this.delegate = delegate;
      this.resumed = resumed;
      this.renewals = renewals;
    }

    @Override
    public String renewLease(
        String namespace, String name, String holder, String version, Instant now, Duration ttl) {
      if (Thread.currentThread().getName().startsWith("capstan-lease")) {
        try {
          resumed.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        renewals.add("renewer thread");
        throw new IllegalStateException("the renewer is starved (test)");
      }
      renewals.add("caster thread");
      return delegate.renewLease(namespace, name, holder, version, now, ttl);
    }

    @Override
    public java.util.Optional<dev.capstan.release.port.StoredRelease> latestRecord(
        String namespace, String name) {
      return delegate.latestRecord(namespace, name);
    }

    @Override
    public List<dev.capstan.release.port.StoredRelease> records(String namespace, String name) {
      return delegate.records(namespace, name);
    }

    @Override
    public List<dev.capstan.release.port.StoredRelease> latestRecords(String namespace) {
      return delegate.latestRecords(namespace);
    }

    @Override
    public dev.capstan.release.port.StoredRelease createRecord(Release release) {
      return delegate.createRecord(release);
    }

    @Override
    public dev.capstan.release.port.StoredRelease updateRecord(
        Release release, String expectedVersion) {
      return delegate.updateRecord(release, expectedVersion);
    }

    @Override
    public void deleteRecord(String namespace, String name, int revision) {
      delegate.deleteRecord(namespace, name, revision);
    }

    @Override
    public LeaseGrant acquireLease(
        String namespace, String name, String holder, Instant now, Duration ttl) {
      return delegate.acquireLease(namespace, name, holder, now, ttl);
    }

    @Override
    public void releaseLease(String namespace, String name, String holder, boolean forget) {
      delegate.releaseLease(namespace, name, holder, forget);
    }
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
