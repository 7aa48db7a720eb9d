package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.memory.SimulatedCrash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Nothing a cast wrote is forgotten: an attempt whose outcome the store would not take leaves its
 * intent with its lease, and the next operation records it; a takeover tells whether the dead
 * holder recorded its attempt by the attempt id its lease and its record share, on a clock that
 * does not move between casts (ARCHITECTURE.md, "Leases and retries").
 */
class UnrecordedAttemptTest {
  private static final ResourceRef A = ResourceRef.of(Kind.CONFIG_MAP, NS, "a");
  private static final ResourceRef B = ResourceRef.of(Kind.CONFIG_MAP, NS, "b");
  private static final ResourceRef C = ResourceRef.of(Kind.CONFIG_MAP, NS, "c");

  private final Fixtures.Harness h = new Fixtures.Harness("caster-a");

  @Test
  void aFirstInstallThatCannotRecordItsFailureKeepsItsIntentAndTheNextCastRecordsIt() {
    Payloads v1 = payloads(configMap("a", "1"), configMap("b", "1"), configMap("c", "1"));
    h.cluster
        .faults()
        .failOn(Operation.APPLY, B.key())
        .failOn(Operation.RECORD_CREATE, "default/app");

    assertThatThrownBy(() -> h.cast("app", v1))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> {
              Throwable cause = java.util.Objects.requireNonNull(e.getCause());
              assertThat(cause)
                  .hasMessage(
                      "apply ConfigMap/default/b failed: injected fault on ConfigMap/default/b");
              assertThat(cause.getSuppressed())
                  .extracting(Throwable::getMessage)
                  .containsExactly(
                      "record_create default/app failed: injected fault on default/app");
            });

    // no record, and the lease is still there with the intent: expired now, not deleted
    assertThat(h.controller.get(NS, "app")).isEmpty();
    assertThat(h.cluster.lease(NS, "app")).contains(new Lease("caster-a", T0, T0));
    assertThat(h.cluster.leaseIntent(NS, "app")).isPresent();
    assertThat(h.events)
        .filteredOn(ReleaseEvent.Warning.class::isInstance)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: could not record the failure of revision 1 (record_create default/app"
                + " failed: injected fault on default/app); its lease keeps what it wrote, and the next cast records it"
                + " failed",
            "warning: kept the operation lease, expired, with what this operation was doing: the"
                + " next operation on the release takes it over and records it");
    String id = h.cluster.stamp(A).orElseThrow().owner().id();

    // the store is back; the clock has not moved; the next cast needs no --adopt
    h.cluster.faults().clear();
    h.cluster.clearOperations();
    CastResult r = h.other("caster-b").cast(spec("app", v1), v1);

    assertThat(r.plan().changes(Action.CONFLICT)).isEmpty();
    assertThat(r.release().id()).isEqualTo(id);
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:") && !op.startsWith("record:read"))
        .containsExactly(
            "record:create:default/app#1:failed", "record:create:default/app#2:deployed");
    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(tuple(2, ReleaseStatus.DEPLOYED), tuple(1, ReleaseStatus.FAILED));
    Release interrupted = h.controller.history(NS, "app").get(1);
    assertThat(interrupted.owns()).extracting(OwnedResource::ref).containsExactly(A, B, C);
    assertThat(interrupted.failure())
        .isEqualTo(
            "interrupted: the lease of caster-a expired at 2026-01-01T00:00:00Z before the cast"
                + " finished");
    // a, written by the interrupted attempt, is written once more: its record knew no content
    assertThat(r.plan().changes())
        .extracting(c -> c.action() + " " + c.ref().key())
        .containsExactly(
            "REFERENCE Namespace//default",
            "UPDATE ConfigMap/default/a",
            "CREATE ConfigMap/default/b",
            "CREATE ConfigMap/default/c");
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void anUpgradeThatCannotRecordItsFailureIsRecordedFailedByTheNextCast() {
    h.cast("app", payloads(configMap("a", "1")));
    Payloads v2 = payloads(configMap("a", "2"), configMap("b", "2"));
    h.cluster
        .faults()
        .failOn(Operation.APPLY, B.key())
        .failOn(Operation.RECORD_CREATE, "default/app");
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(CastFailedException.class);
    h.cluster.faults().clear();
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(1);

    CastResult r = h.cast("app", v2);

    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(3, ReleaseStatus.DEPLOYED),
            tuple(2, ReleaseStatus.FAILED),
            tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(r.plan().changes())
        .extracting(c -> c.action() + " " + c.ref().key())
        .containsExactly(
            "REFERENCE Namespace//default",
            "UPDATE ConfigMap/default/a",
            "CREATE ConfigMap/default/b");
    assertThat(h.cluster.object(A).orElseThrow().get("data.value")).isEqualTo("2");
  }

  @Test
  void overAStoreWithoutLeaseIntentsAPendingRevisionWhoseFailureCannotBeRecordedKeepsItsLease() {
    Fixtures.Harness p = Fixtures.Harness.withoutLeaseIntents("caster-a");
    Payloads v1 = payloads(configMap("a", "1"), configMap("b", "1"));
    p.cluster
        .faults()
        .failOn(Operation.APPLY, B.key())
        .failOn(Operation.RECORD_UPDATE, "default/app");
    assertThatThrownBy(() -> p.cast("app", v1)).isInstanceOf(CastFailedException.class);
    assertThat(p.controller.get(NS, "app").orElseThrow().status()).isEqualTo(ReleaseStatus.PENDING);
    assertThat(p.cluster.lease(NS, "app")).contains(new Lease("caster-a", T0, T0));
    p.cluster.faults().clear();

    CastResult r = p.other("caster-b").cast(spec("app", v1), v1);

    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(p.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(tuple(2, ReleaseStatus.DEPLOYED), tuple(1, ReleaseStatus.FAILED));
  }

  @Test
  void aTakeoverOnAClockThatDidNotMoveSinceTheLastRecordStillRecordsTheInterruptedCast() {
    // revision 1 is recorded at T0, and the next cast takes its lease at T0 too
    h.cast("app", payloads(configMap("a", "1")));
    h.cluster.faults().crashAfter(Operation.APPLY, 2);
    Payloads v2 = payloads(configMap("a", "2"), configMap("b", "2"));
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    assertThat(h.controller.get(NS, "app").orElseThrow().createdAt())
        .isEqualTo(h.cluster.lease(NS, "app").orElseThrow().acquiredAt());

    h.clock.advance(Duration.ofMinutes(3));
    CastResult r = h.other("caster-b").cast(spec("app", v2), v2);

    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(3, ReleaseStatus.DEPLOYED),
            tuple(2, ReleaseStatus.FAILED),
            tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(h.controller.history(NS, "app").get(1).owns())
        .extracting(OwnedResource::ref)
        .containsExactly(A, B);
    assertThat(r.plan().changes(Action.CONFLICT)).isEmpty();
  }

  @Test
  void aHolderThatRecordedItsOutcomeAndDiedBeforeGivingUpItsLeaseIsRecordedOnce() {
    h.cast("app", payloads(configMap("a", "1")));
    // revision 2 is recorded at the same instant; its caster dies before it gives the lease up
    h.cluster.faults().crashAfter(Operation.RECORD_CREATE, 1);
    Payloads v2 = payloads(configMap("a", "2"));
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    Release second = h.controller.get(NS, "app").orElseThrow();
    assertThat(second.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.leaseIntent(NS, "app").orElseThrow()).contains(second.attempt());

    h.clock.advance(Duration.ofMinutes(3));
    h.cluster.clearOperations();
    CastResult r = h.other("caster-b").cast(spec("app", v2), v2);

    assertThat(r.plan().changesNothing()).isTrue();
    assertThat(h.cluster.operations()).noneMatch(op -> op.startsWith("apply:"));
    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(3, ReleaseStatus.DEPLOYED),
            tuple(2, ReleaseStatus.SUPERSEDED),
            tuple(1, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void anUninstallWhoseTombstoneCannotBeWrittenIsFinishedByTheNextUninstall() {
    h.cast("app", payloads(configMap("a", "1"), configMap("b", "1")));
    h.cluster.faults().failOn(Operation.RECORD_UPDATE, "default/app");

    assertThatThrownBy(() -> h.controller.uninstall(NS, "app", UninstallOptions.defaults()))
        .hasMessage("record_update default/app failed: injected fault on default/app");
    h.cluster.faults().clear();
    assertThat(h.cluster.objects()).isEmpty();
    assertThat(h.cluster.lease(NS, "app")).contains(new Lease("caster-a", T0, T0));

    // a cast would bring back what the uninstall deleted: it is refused until it is finished
    Payloads v1 = payloads(configMap("a", "1"));
    assertThatThrownBy(() -> h.cast("app", v1))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(
            "release default/app is being uninstalled (revision 1); run uninstall again to finish"
                + " it before casting");
    assertThat(h.cluster.objects()).isEmpty();

    h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(h.controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
  }
}
