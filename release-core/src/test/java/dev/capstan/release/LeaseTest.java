package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.memory.SimulatedCrash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.OperationInProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The operation lease serialises operations on one release, and expired leases are taken over. */
class LeaseTest {
  private final Fixtures.Harness h = new Fixtures.Harness("caster-a");

  @Test
  void secondConcurrentCastIsRefusedNamingTheHolder() {
    h.cluster.putLease(NS, "app", new Lease("caster-b", T0, T0.plus(Duration.ofMinutes(2))));
    h.cluster.clearOperations();
    Payloads p = payloads(configMap("a", "1"));

    assertThatThrownBy(() -> h.cast("app", p))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class,
            e -> {
              assertThat(e.holder()).isEqualTo("caster-b");
              assertThat(e.expiresAt()).isEqualTo(T0.plus(Duration.ofMinutes(2)));
              assertThat(e.getMessage())
                  .isEqualTo(
                      "release default/app is locked by caster-b (renewed 0 s ago, expires in 120"
                          + " s); pass --wait (waitForLease) to queue behind it");
            });
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.counts()).containsEntry(Operation.RECORD_CREATE, 0);
    assertThat(h.cluster.lease(NS, "app").orElseThrow().holder()).isEqualTo("caster-b");
  }

  @Test
  void castsOnTwoThreadsOneProceedsTheOtherIsLocked() throws Exception {
    // the first caster is slowed down inside its cast so the second one meets its lease
    h.cluster.faults().delay(Operation.AWAIT_READY, Duration.ofSeconds(2));
    Payloads p = payloads(configMap("a", "1"));
    ReleaseController b = h.other("caster-b");
    var first = new java.util.concurrent.CompletableFuture<Object>();
    Thread t =
        new Thread(
            () -> {
              try {
                first.complete(h.cast("app", p));
              } catch (RuntimeException e) {
                first.complete(e);
              }
            });
    t.start();
    while (h.cluster.lease(NS, "app").isEmpty()) {
      Thread.onSpinWait();
    }

    assertThatThrownBy(() -> b.cast(spec("app", p), p))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("caster-a"));
    t.join();
    assertThat(first.get()).isInstanceOf(CastResult.class);
    assertThat(h.controller.history(NS, "app")).hasSize(1);
  }

  @Test
  void anExpiredLeaseNamingACastThatRecordedNothingIsRecordedFailedAndWhatItCreatedIsPruned() {
    h.cast("app", payloads(configMap("a", "1")));
    // a later operation takes the lease at a later instant (its record's createdAt)
    h.clock.advance(Duration.ofSeconds(1));
    // caster-a dies right after applying configmap b, which it creates: its lease names the cast
    h.cluster.faults().crashAfter(Operation.APPLY, 2);
    Payloads v2 = payloads(configMap("a", "2"), configMap("b", "2"));
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(1);
    assertThat(h.cluster.leaseIntent(NS, "app")).isPresent();
    assertThat(h.cluster.stamp(ResourceRef.of(Kind.CONFIG_MAP, NS, "b"))).isPresent();

    ReleaseController b = h.other("caster-b");
    h.clock.advance(Duration.ofMinutes(3));
    Payloads v1 = payloads(configMap("a", "1"));
    h.cluster.clearOperations();
    CastResult r = b.cast(spec("app", v1), v1);

    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:create") || op.startsWith("record:update"))
        .containsExactly(
            "record:create:default/app#2:failed", "record:create:default/app#3:deployed");
    assertThat(r.release().revision()).isEqualTo(3);
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(r.plan().changes())
        .extracting(c -> c.action() + " " + c.ref().key())
        .containsExactlyInAnyOrder(
            "REFERENCE Namespace//default",
            "UPDATE ConfigMap/default/a",
            "PRUNE ConfigMap/default/b");
    assertThat(h.cluster.objects()).containsExactly(ResourceRef.of(Kind.CONFIG_MAP, NS, "a"));
    Release interrupted = b.history(NS, "app").get(1);
    assertThat(interrupted.revision()).isEqualTo(2);
    assertThat(interrupted.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(interrupted.failure())
        .isEqualTo(
            "interrupted: the lease of caster-a expired at 2026-01-01T00:02:01Z before the cast"
                + " finished");
    assertThat(interrupted.owns())
        .extracting(OwnedResource::ref)
        .containsExactly(
            ResourceRef.of(Kind.CONFIG_MAP, NS, "a"), ResourceRef.of(Kind.CONFIG_MAP, NS, "b"));
    assertThat(interrupted.id()).isEqualTo(r.release().id());
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void whileACastOrAnUninstallRunsItsLeaseShowsWhatItDoes() {
    List<Optional<OperationInProgress>> seen = new ArrayList<>();
    ReleaseController controller =
        ReleaseController.builder(h.cluster, h.cluster)
            .clock(h.clock)
            .holder("caster-a")
            .leaseDuration(Duration.ofMinutes(2))
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Done) {
                    seen.add(h.controller.inProgress(NS, "app"));
                  }
                })
            .build();
    Payloads p = payloads(configMap("a", "1"));

    assertThat(h.controller.inProgress(NS, "app")).isEmpty();
    controller.cast(spec("app", p), p);
    controller.uninstall(NS, "app", dev.capstan.release.model.UninstallOptions.defaults());

    Instant until = T0.plus(Duration.ofMinutes(2));
    assertThat(seen)
        .containsExactly(
            Optional.of(
                new OperationInProgress("caster-a", T0, until, OperationInProgress.Operation.CAST)),
            Optional.of(
                new OperationInProgress(
                    "caster-a", T0, until, OperationInProgress.Operation.UNINSTALL)));
    assertThat(h.controller.inProgress(NS, "app")).isEmpty();
  }

  @Test
  void overAStoreThatKeepsNoLeaseIntentsTheLeaseShowsItsHolderOnly() {
    Fixtures.Harness pending = Fixtures.Harness.withoutLeaseIntents("caster-a");
    pending.cluster.putLease(NS, "app", new Lease("caster-b", T0, T0.plusSeconds(60)));

    assertThat(pending.controller.inProgress(NS, "app"))
        .contains(new OperationInProgress("caster-b", T0, T0.plusSeconds(60), null));
  }

  @Test
  void anExpiredLeaseNamingAFirstInstallThatRecordedNothingKeepsItsReleaseId() {
    // caster-a dies after creating configmap a of the release's first cast: no record at all
    h.cluster.faults().crashAfter(Operation.APPLY, 1);
    Payloads v1 = payloads(configMap("a", "1"), configMap("b", "1"));
    assertThatThrownBy(() -> h.cast("app", v1)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    assertThat(h.controller.get(NS, "app")).isEmpty();
    String id =
        h.cluster.stamp(ResourceRef.of(Kind.CONFIG_MAP, NS, "a")).orElseThrow().owner().id();

    h.clock.advance(Duration.ofMinutes(3));
    ReleaseController b = h.other("caster-b"); // its ids are "other-id": the record's id is kept
    CastResult r = b.cast(spec("app", v1), v1);

    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(r.release().id()).isEqualTo(id);
    assertThat(r.plan().changes(Action.CONFLICT)).isEmpty();
    Release interrupted = b.history(NS, "app").get(1);
    assertThat(interrupted.revision()).isEqualTo(1);
    assertThat(interrupted.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(interrupted.id()).isEqualTo(id);
    assertThat(interrupted.payloads().refs()).isEmpty();
  }

  @Test
  void aCastThatPlansFirstTakesOverTheLeaseOfACrashedFirstInstallInsteadOfRefusingItsObjects() {
    h.cluster.faults().crashAfter(Operation.APPLY, 1);
    Payloads v1 = payloads(configMap("a", "1"), configMap("b", "1"));
    assertThatThrownBy(() -> h.cast("app", v1)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    String id =
        h.cluster.stamp(ResourceRef.of(Kind.CONFIG_MAP, NS, "a")).orElseThrow().owner().id();
    h.clock.advance(Duration.ofMinutes(3));
    ReleaseController b = h.other("caster-b");
    // createNamespace plans before taking the lease: the dead install's objects, which no record
    // names, would be conflicts; its lease says whose they are
    ReleaseSpec spec = spec("app", v1).withCreateNamespace(true);

    CastResult r = b.cast(spec, v1);

    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(r.release().id()).isEqualTo(id);
    assertThat(r.plan().changes(Action.CONFLICT)).isEmpty();
    assertThat(b.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.FAILED));
  }

  @Test
  void aCastThatPlansFirstIsStillRefusedWhenTheHeldLeaseExplainsNoConflict() {
    h.cluster.put(configMap("a", "not ours"));
    h.cluster.putLease(NS, "app", new Lease("dead", T0.minusSeconds(600), T0.minusSeconds(1)));
    Payloads v1 = payloads(configMap("a", "1"));

    assertThatThrownBy(() -> h.controller.cast(spec("app", v1).withCreateNamespace(true), v1))
        .isInstanceOf(dev.capstan.release.error.ReleaseConflictException.class)
        .hasMessageContaining("ConfigMap/default/a");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void overAStoreThatKeepsNoLeaseIntentsAPendingRevisionOfACrashedCasterIsRecordedFailed() {
    Fixtures.Harness h = Fixtures.Harness.withoutLeaseIntents("caster-a");
    h.cast("app", payloads(configMap("a", "1")));
    // caster-a dies right after applying configmap b: lease held, record pending
    h.cluster.faults().crashAfter(Operation.APPLY, 2);
    Payloads v2 = payloads(configMap("a", "2"), configMap("b", "2"));
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    Release pending = h.controller.get(NS, "app").orElseThrow();
    assertThat(pending.status()).isEqualTo(ReleaseStatus.PENDING);
    assertThat(pending.lease()).extracting(Lease::holder).isEqualTo("caster-a");

    ReleaseController b = h.other("caster-b");
    assertThatThrownBy(() -> b.cast(spec("app", v2), v2))
        .isInstanceOfSatisfying(
            ReleaseLockedException.class, e -> assertThat(e.holder()).isEqualTo("caster-a"));

    h.clock.advance(Duration.ofMinutes(3));
    CastResult r = b.cast(spec("app", v2), v2);

    assertThat(r.release().revision()).isEqualTo(3);
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    Release interrupted = b.history(NS, "app").get(1);
    assertThat(interrupted.revision()).isEqualTo(2);
    assertThat(interrupted.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(interrupted.failure())
        .isEqualTo(
            "interrupted: the lease of caster-a expired at 2026-01-01T00:02:00Z before the cast"
                + " finished");
    assertThat(interrupted.owns())
        .extracting(OwnedResource::ref)
        .containsExactly(
            ResourceRef.of(Kind.CONFIG_MAP, NS, "a"), ResourceRef.of(Kind.CONFIG_MAP, NS, "b"));
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void leaseTakeoverIsReportedAsAnEvent() {
    h.cluster.putLease(NS, "app", new Lease("dead", T0.minusSeconds(600), T0.minusSeconds(1)));

    h.cast("app", payloads(configMap("a", "1")));

    assertThat(h.events)
        .filteredOn(ReleaseEvent.LeaseAcquired.class::isInstance)
        .singleElement()
        .extracting(ReleaseEvent::describe)
        .isEqualTo(
            "lease acquired by caster-a, taking over from dead (expired 2025-12-31T23:59:59Z)");
  }

  @Test
  void leaseIsReleasedAfterSuccessAndFailure() {
    h.cast("app", payloads(configMap("a", "1")));
    assertThat(h.cluster.lease(NS, "app")).isEmpty();

    h.cluster.faults().failOn(Operation.APPLY, 1);
    assertThatThrownBy(() -> h.cast("app", payloads(configMap("a", "2"))))
        .isInstanceOf(CastFailedException.class);
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }
}
