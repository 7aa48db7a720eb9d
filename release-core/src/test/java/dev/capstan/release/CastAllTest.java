package dev.capstan.release;

import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.result.CastOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link ReleaseController#castAll}: a fleet's releases already as asked cost one read of the
 * records per namespace and one observation per kind and namespace, all together, and nothing
 * written; every other release is cast as {@link ReleaseController#cast} casts it, failing on its
 * own.
 */
class CastAllTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  CastAllTest() {
    h.cluster.addNamespace("team-b");
  }

  /** Release {@code name} of {@code namespace}: a ConfigMap and a Secret, named after it. */
  private static ReleaseInput app(String namespace, String name, String value) {
    Payloads payloads =
        Payloads.of(
            ConfigMapSpec.of(namespace, name + "-config", Map.of("value", value)),
            SecretSpec.of(namespace, name + "-secret", Map.of("token", "s3cr3t-" + name)));
    return new ReleaseInput(ReleaseSpec.of(namespace, name, payloads), payloads);
  }

  private static List<ReleaseInput> fleet() {
    return List.of(
        app("default", "a", "1"),
        app("default", "b", "1"),
        app("default", "c", "1"),
        app("team-b", "d", "1"),
        app("team-b", "e", "1"));
  }

  private static List<String> summary(List<CastOutcome> outcomes) {
    List<String> out = new ArrayList<>();
    for (CastOutcome o : outcomes) {
      if (o instanceof CastOutcome.Unchanged u) {
        out.add(u.release() + " unchanged at " + u.deployed().revision());
      } else if (o instanceof CastOutcome.Cast c) {
        out.add(
            c.release()
                + " cast "
                + c.result().release().revision()
                + " "
                + c.result().release().status().id());
      } else if (o instanceof CastOutcome.Failed f) {
        out.add(f.release() + " failed " + f.error().getClass().getSimpleName());
      }
    }
    return out;
  }

  @Test
  void aFleetAlreadyAsAskedIsReadOncePerNamespaceAndKindAndWritesNothing() {
    assertThat(summary(h.controller.castAll(fleet(), 3)))
        .containsExactly(
            "default/a cast 1 deployed",
            "default/b cast 1 deployed",
            "default/c cast 1 deployed",
            "team-b/d cast 1 deployed",
            "team-b/e cast 1 deployed");
    h.cluster.clearOperations();
    h.events.clear();

    List<CastOutcome> again = h.controller.castAll(fleet(), 3);

    assertThat(summary(again))
        .containsExactly(
            "default/a unchanged at 1",
            "default/b unchanged at 1",
            "default/c unchanged at 1",
            "team-b/d unchanged at 1",
            "team-b/e unchanged at 1");
    // the records of each namespace in one read, then each kind of each namespace once, for all
    // five releases; no lease, no record, no object written
    assertThat(h.cluster.operations())
        .containsExactlyInAnyOrder(
            "record:read:default",
            "record:read:team-b",
            "observe:ConfigMap/default",
            "observe:Secret/default",
            "observe:ConfigMap/team-b",
            "observe:Secret/team-b");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(again)
        .allSatisfy(
            o ->
                assertThat(((CastOutcome.Unchanged) o).plan().changes())
                    .extracting(dev.capstan.release.plan.PlannedChange::action)
                    .containsExactly(Action.REFERENCE, Action.UNCHANGED, Action.UNCHANGED));
    // each release found as asked is reported as a plan of its own
    assertThat(h.events)
        .filteredOn(ReleaseEvent.Planned.class::isInstance)
        .extracting(e -> ((ReleaseEvent.Planned) e).release())
        .containsExactlyInAnyOrder("default/a", "default/b", "default/c", "team-b/d", "team-b/e");
    assertThat(h.controller.history("default", "a")).hasSize(1);
  }

  @Test
  void theReleasesToCastTakeTheirLeasesThenReadTheirRecordsAndObjectsTogether() {
    h.controller.castAll(fleet(), 2);
    List<ReleaseInput> changed = new ArrayList<>(fleet());
    changed.set(1, app("default", "b", "2"));
    changed.set(4, app("team-b", "e", "2"));
    h.cluster.clearOperations();

    List<CastOutcome> outcomes = h.controller.castAll(changed, 2);

    assertThat(summary(outcomes))
        .containsExactly(
            "default/a unchanged at 1",
            "default/b cast 2 deployed",
            "default/c unchanged at 1",
            "team-b/d unchanged at 1",
            "team-b/e cast 2 deployed");
    List<String> ops = h.cluster.operations();
    // what tells the unchanged ones apart, read without a lease
    assertThat(ops.subList(0, 2)).containsExactly("record:read:default", "record:read:team-b");
    assertThat(ops.subList(2, 6))
        .containsExactlyInAnyOrder(
            "observe:ConfigMap/default",
            "observe:Secret/default",
            "observe:ConfigMap/team-b",
            "observe:Secret/team-b");
    // the two to cast: both leases first, then under them their records, one read per namespace,
    // and what they name, one observation per kind and namespace (the in-memory lease proves no
    // namespace, so the namespaces are observed too, as a cast of each would)
    assertThat(ops.subList(6, 8))
        .containsExactlyInAnyOrder("lease:acquire:default/b", "lease:acquire:team-b/e");
    assertThat(ops.subList(8, 10))
        .containsExactly("record:read:default/{b}", "record:read:team-b/{e}");
    assertThat(ops.subList(10, 15))
        .containsExactlyInAnyOrder(
            "observe:ConfigMap/default",
            "observe:Secret/default",
            "observe:Namespace/",
            "observe:ConfigMap/team-b",
            "observe:Secret/team-b");
    // then each is cast from those reads alone: its write, its record, its lease given up
    assertThat(ops.subList(15, ops.size()))
        .containsExactlyInAnyOrder(
            "apply:ConfigMap/default/b-config",
            "verify",
            "record:create:default/b#2:deployed",
            "lease:release:default/b",
            "apply:ConfigMap/team-b/e-config",
            "verify",
            "record:create:team-b/e#2:deployed",
            "lease:release:team-b/e");
    assertThat(h.controller.get("team-b", "e").orElseThrow().owns()).hasSize(2);
  }

  @Test
  void releasesAreCastInGroupsOfTwoPerThreadEachReadTogether() {
    h.cluster.clearOperations();

    List<CastOutcome> outcomes = h.controller.castAll(fleet(), 1);

    assertThat(outcomes).allMatch(CastOutcome.Cast.class::isInstance);
    // one at a time, two a group: a and b, c and d, then e; none of the five has a record yet
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:read") || op.startsWith("lease:acquire"))
        .containsExactly(
            "record:read:default",
            "record:read:team-b",
            "lease:acquire:default/a",
            "lease:acquire:default/b",
            "record:read:default/{a,b}",
            "lease:acquire:default/c",
            "lease:acquire:team-b/d",
            "record:read:default/{c}",
            "record:read:team-b/{d}",
            "lease:acquire:team-b/e",
            "record:read:team-b/{e}");
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:create"))
        .containsExactly(
            "record:create:default/a#1:deployed",
            "record:create:default/b#1:deployed",
            "record:create:default/c#1:deployed",
            "record:create:team-b/d#1:deployed",
            "record:create:team-b/e#1:deployed");
  }

  @Test
  void aReleaseWhoseExpiredLeaseItTakesOverReadsForItself() {
    h.controller.castAll(List.of(app("default", "a", "1"), app("default", "b", "1")), 1);
    // a's last caster died holding its lease, which has expired
    h.cluster.putLease(
        "default",
        "a",
        new Lease("dead", Fixtures.T0.minusSeconds(600), Fixtures.T0.minusSeconds(1)));
    h.cluster.clearOperations();

    List<CastOutcome> outcomes =
        h.controller.castAll(List.of(app("default", "a", "2"), app("default", "b", "2")), 1);

    assertThat(summary(outcomes))
        .containsExactly("default/a cast 2 deployed", "default/b cast 2 deployed");
    // b's record is read with the group's; a's, after its takeover, by its own cast
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:read"))
        .containsExactly("record:read:default", "record:read:default/{b}", "record:read:default/a");
  }

  @Test
  void onlyTheReleasesThatDifferAreCast() {
    h.controller.castAll(fleet(), 2);
    ReleaseInput b = app("default", "b", "1");
    h.cluster.edit(
        ResourceRef.of(Kind.CONFIG_MAP, "team-b", "e-config"),
        m -> m.withEntry("data", "value", "edited by hand"));
    h.cluster.clearOperations();

    List<CastOutcome> outcomes =
        h.controller.castAll(
            List.of(
                app("default", "a", "2"), // a new value
                new ReleaseInput(b.spec().withVersion("1.1.0"), b.payloads()), // a new version
                app("default", "c", "1"),
                app("team-b", "d", "1"),
                app("team-b", "e", "1")), // drifted
            2);

    assertThat(summary(outcomes))
        .containsExactly(
            "default/a cast 2 deployed",
            "default/b cast 2 deployed",
            "default/c unchanged at 1",
            "team-b/d unchanged at 1",
            "team-b/e cast 2 deployed");
    assertThat(((CastOutcome.Cast) outcomes.get(0)).result().plan().changes(Action.UPDATE))
        .extracting(c -> c.ref().key())
        .containsExactly("ConfigMap/default/a-config");
    assertThat(((CastOutcome.Cast) outcomes.get(1)).result().plan().changesNothing()).isTrue();
    assertThat(h.controller.get("default", "b").orElseThrow().version()).isEqualTo("1.1.0");
    assertThat(((CastOutcome.Cast) outcomes.get(4)).result().plan().changes(Action.REPAIR))
        .extracting(c -> c.ref().key())
        .containsExactly("ConfigMap/team-b/e-config");
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("lease:acquire"))
        .containsExactlyInAnyOrder(
            "lease:acquire:default/a", "lease:acquire:default/b", "lease:acquire:team-b/e");
  }

  @Test
  void aReleaseWhoseLatestRevisionFailedIsCastAgainEvenWithNothingToWrite() {
    h.cluster.neverReady("web:broken", "ImagePullBackOff");
    Payloads broken = payloads(web("web:broken"), creds("pw"));
    ReleaseInput app = new ReleaseInput(ReleaseSpec.of(Fixtures.NS, "app", broken), broken);
    assertThatThrownBy(() -> h.controller.cast(app.spec(), app.payloads()))
        .isInstanceOf(CastFailedException.class);

    List<CastOutcome> outcomes = h.controller.castAll(List.of(app), 1);

    assertThat(outcomes.get(0))
        .isInstanceOfSatisfying(
            CastOutcome.Failed.class,
            f ->
                assertThat(f.error())
                    .isInstanceOfSatisfying(
                        CastFailedException.class,
                        e -> {
                          assertThat(e.result().plan().changesNothing()).isTrue();
                          assertThat(e.result().release().revision()).isEqualTo(2);
                          assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
                        }));
  }

  @Test
  void eachReleaseFailsOnItsOwnAndTheOthersAreCast() {
    // someone else's ConfigMap where release b wants its own
    h.cluster.put(ConfigMapSpec.of("default", "b-config", Map.of("value", "theirs")));
    ReleaseInput a = app("default", "a", "1");
    ReleaseInput mismatched =
        new ReleaseInput(app("default", "c", "1").spec(), app("default", "c", "2").payloads());

    List<CastOutcome> outcomes =
        h.controller.castAll(
            List.of(a, app("default", "b", "1"), mismatched, app("team-b", "d", "1")), 4);

    assertThat(summary(outcomes))
        .containsExactly(
            "default/a cast 1 deployed",
            "default/b failed ReleaseConflictException",
            "default/c failed InvalidReleaseException",
            "team-b/d cast 1 deployed");
    assertConflicts(outcomes.get(1), "ConfigMap/default/b-config");
    assertThat(((CastOutcome.Failed) outcomes.get(2)).error())
        .isInstanceOf(InvalidReleaseException.class);
    assertThat(h.controller.get("default", "b")).isEmpty();
    assertThat(h.controller.get("default", "c")).isEmpty();
    assertThat(h.cluster.object(ResourceRef.of(Kind.CONFIG_MAP, "default", "b-config")))
        .hasValueSatisfying(
            m -> assertThat(m.content().get("data")).isEqualTo(Map.of("value", "theirs")));
    assertThat(h.cluster.objects())
        .doesNotContain(ResourceRef.of(Kind.SECRET, "default", "b-secret"));
  }

  @Test
  void aReleaseWhoseRecordIsDeletedWhileTheSharedReadReadsItIsCastOnItsOwn() {
    h.controller.castAll(fleet(), 3);
    // the shared read listed b's record, which was deleted before it was read
    Store racing =
        new ForwardingStore(h.cluster) {
          @Override
          public SortedMap<String, RecordEntry> latestEntries(String namespace) {
            SortedMap<String, RecordEntry> out = new TreeMap<>(h.cluster.latestEntries(namespace));
            out.computeIfPresent(
                "b",
                (name, e) ->
                    RecordEntry.lazy(
                        e.revision(),
                        e.status(),
                        () -> {
                          throw new StaleRecordException(
                              namespace + "/b", e.revision(), "its record was deleted while read");
                        }));
            return out;
          }
        };
    ReleaseController controller =
        ReleaseController.builder(h.cluster, racing)
            .clock(h.clock)
            .holder("me")
            .leaseDuration(Duration.ofMinutes(2))
            .build();

    assertThat(summary(controller.castAll(fleet(), 3)))
        .containsExactly(
            "default/a unchanged at 1",
            "default/b cast 2 deployed",
            "default/c unchanged at 1",
            "team-b/d unchanged at 1",
            "team-b/e unchanged at 1");
  }

  @Test
  void aReleaseAnotherCasterHasStartedToChangeIsCastAndMeetsItsLease() {
    h.controller.castAll(List.of(app("default", "a", "1"), app("default", "b", "1")), 1);
    // caster-b holds both leases; of a it has already written one object, of b nothing yet
    Lease held = new Lease("caster-b", Fixtures.T0, Fixtures.T0.plus(Duration.ofMinutes(2)));
    h.cluster.putLease("default", "a", held);
    h.cluster.putLease("default", "b", held);
    h.cluster.edit(
        ResourceRef.of(Kind.CONFIG_MAP, "default", "a-config"),
        m -> m.withEntry("data", "value", "caster-b's"));

    List<CastOutcome> outcomes =
        h.controller.castAll(List.of(app("default", "a", "1"), app("default", "b", "1")), 2);

    // a does not match: its cast meets the lease, and writes nothing; b matched when observed,
    // as a plan would say
    assertThat(summary(outcomes))
        .containsExactly("default/a failed ReleaseLockedException", "default/b unchanged at 1");
    assertThat(h.cluster.object(ResourceRef.of(Kind.CONFIG_MAP, "default", "a-config")))
        .hasValueSatisfying(
            m -> assertThat(m.content().get("data")).isEqualTo(Map.of("value", "caster-b's")));
  }

  @Test
  void aReleaseGivenTwiceIsRefusedBeforeAnyRead() {
    h.cluster.clearOperations();
    List<ReleaseInput> twice =
        List.of(app("default", "a", "1"), app("team-b", "d", "1"), app("default", "a", "2"));

    assertThatThrownBy(() -> h.controller.castAll(twice, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("release default/a is given twice (inputs 0 and 2)");
    assertThatThrownBy(() -> h.controller.castAll(List.of(app("default", "a", "1")), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parallelism must be at least 1: 0");
    assertThat(h.cluster.operations()).isEmpty();
  }

  @Test
  void aReleaseAsAskedStaysUnchangedWhenAnotherOfTheCallWantsItsObject() {
    ReleaseInput a = app("default", "a", "1");
    ReleaseInput other = app("default", "other", "1");
    h.controller.castAll(List.of(a, other), 1);
    List<dev.capstan.release.model.ResourceSpec> both = new ArrayList<>(other.payloads().specs());
    both.addAll(a.payloads().specs());
    Payloads wantsA = Payloads.of(both);
    ReleaseInput greedy = new ReleaseInput(ReleaseSpec.of("default", "other", wantsA), wantsA);
    h.cluster.clearOperations();

    List<CastOutcome> outcomes = h.controller.castAll(List.of(a, greedy), 1);

    assertThat(summary(outcomes))
        .containsExactly(
            "default/a unchanged at 1", "default/other failed ReleaseConflictException");
    assertConflicts(outcomes.get(1), "ConfigMap/default/a-config", "Secret/default/a-secret");
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void anInterruptStopsTheCastUnderWayAndStartsNoOther() throws InterruptedException {
    CountDownLatch writing = new CountDownLatch(1);
    ForwardingOrchestrator blocking =
        new ForwardingOrchestrator(h.cluster) {
          @Override
          public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition p) {
            if (object.name().equals("a-config")) {
              writing.countDown();
              try {
                new CountDownLatch(1).await(); // until interrupted
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClusterException("interrupted while writing", e);
              }
            }
            super.apply(object, stamp, p);
          }
        };
    ReleaseController controller = ReleaseController.builder(blocking, h.cluster).build();
    AtomicReference<List<CastOutcome>> outcomes = new AtomicReference<>();
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Thread caller =
        new Thread(
            () -> {
              outcomes.set(
                  controller.castAll(
                      List.of(
                          app("default", "a", "1"),
                          app("default", "b", "1"),
                          app("team-b", "d", "1")),
                      1));
              interruptedAfter.set(Thread.currentThread().isInterrupted());
            });
    caller.start();
    assertThat(writing.await(30, TimeUnit.SECONDS)).isTrue();
    caller.interrupt();
    caller.join(30_000);

    assertThat(caller.isAlive()).isFalse();
    List<CastOutcome> reported = java.util.Objects.requireNonNull(outcomes.get());
    assertThat(summary(reported))
        .containsExactly(
            "default/a failed CastFailedException",
            "default/b failed ReleaseException",
            "team-b/d failed ReleaseException");
    assertThat(((CastOutcome.Failed) reported.get(1)).error())
        .hasMessage(
            "release default/b was not cast: castAll was interrupted before its cast started");
    assertThat(h.controller.get("default", "a").orElseThrow().status())
        .isEqualTo(ReleaseStatus.FAILED);
    assertThat(h.controller.get("default", "b")).isEmpty();
    assertThat(h.controller.get("team-b", "d")).isEmpty();
    // b's lease, taken with a's (one group of two), was given up; d's group never began
    assertThat(h.cluster.heldLease("default", "b")).isEmpty();
    assertThat(h.cluster.heldLease("team-b", "d")).isEmpty();
    assertThat(h.cluster.operations()).doesNotContain("lease:acquire:team-b/d");
    assertThat(interruptedAfter).isTrue();
  }

  @Test
  void anErrorInACastStartsNoOtherAndReachesTheCaller() {
    ForwardingOrchestrator failing =
        new ForwardingOrchestrator(h.cluster) {
          @Override
          public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition p) {
            if (object.name().equals("b-config")) {
              throw new OutOfMemoryError("simulated");
            }
            super.apply(object, stamp, p);
          }
        };
    List<ReleaseEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    ReleaseController controller =
        ReleaseController.builder(failing, h.cluster).listener(events::add).build();

    assertThatThrownBy(
            () ->
                controller.castAll(
                    List.of(
                        app("default", "a", "1"),
                        app("default", "b", "1"),
                        app("default", "c", "1")),
                    1))
        .isInstanceOf(OutOfMemoryError.class)
        .hasMessage("simulated");
    assertThat(h.controller.get("default", "a").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.controller.get("default", "c")).isEmpty();
    // b's lease is left to lapse at its expiry, as any cast leaves it after an Error; c's group
    // (a and b were the first) never began: no lease of it is held
    assertThat(h.cluster.heldLease("default", "b")).isPresent();
    assertThat(h.cluster.heldLease("default", "c")).isEmpty();
    // a's operation and b's each started and finished once; c's never started
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.OperationStarted)
        .extracting(ReleaseEvent::release)
        .containsExactly("default/a", "default/b");
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.Finished)
        .extracting(ReleaseEvent::release)
        .containsExactly("default/a", "default/b");
  }

  /** {@code outcome} failed with a conflict on exactly the objects {@code keys}. */
  private static void assertConflicts(CastOutcome outcome, String... keys) {
    assertThat(outcome)
        .isInstanceOfSatisfying(
            CastOutcome.Failed.class,
            f ->
                assertThat(f.error())
                    .isInstanceOfSatisfying(
                        ReleaseConflictException.class,
                        e ->
                            assertThat(e.plan().conflicts())
                                .extracting(c -> c.ref().key())
                                .containsExactly(keys)));
  }
}
