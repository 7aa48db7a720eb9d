package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SETTINGS;
import static dev.capstan.release.Fixtures.WEB;
import static dev.capstan.release.Fixtures.WEB_SERVICE;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.obj;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.capstan.common.ClusterException;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.Store;
import dev.capstan.release.result.CastResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentMatchers;
import org.mockito.Mockito;

/**
 * The cast lifecycle, with the exact order of operations (rune's reconcile and controller tests).
 */
class CastTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static ResourceRef cm(String name) {
    return ResourceRef.of(Kind.CONFIG_MAP, NS, name);
  }

  @Test
  void firstInstallAppliesInDependencyOrderThenVerifies() {
    // input order is service first; the cast applies the secret first
    Payloads p = Payloads.builder().service(web("web:1")).secret(creds("pw")).build();

    CastResult r = h.cast("app", p);

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify");
    assertThat(r.release().revision()).isEqualTo(1);
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(r.release().owns())
        .extracting(OwnedResource::ref)
        .containsExactly(CREDS, WEB, WEB_SERVICE);
    assertThat(r.plan().changes(Action.CREATE)).hasSize(3);
  }

  @Test
  void castStampsEveryObjectWithReleaseRevisionAndHash() {
    Payloads p = payloads(web("web:1"), creds("pw"));

    CastResult r = h.cast("app", p);

    OwnershipStamp stamp = h.cluster.stamp(WEB).orElseThrow();
    assertThat(stamp.owner()).isEqualTo(new ReleaseIdentity(NS, "app", "id-1"));
    assertThat(stamp.revision()).isEqualTo(1);
    // web reads creds: its pod template carries the config hash (ConfigRollout)
    assertThat(stamp.contentHash())
        .isEqualTo(ContentHash.of(Fixtures.written(r.release(), p, WEB)))
        .isNotEqualTo(ContentHash.of(web("web:1")));
    assertThat(stamp.manager()).isEqualTo("capstan");
    assertThat(h.controller.get(NS, "app")).contains(r.release());
  }

  @Test
  void aCastRecordsItsRevisionOnceAfterTheLastWriteWhileItsLeaseNamesWhatItWrites() {
    List<Optional<String>> intents = new ArrayList<>();
    ReleaseController controller =
        ReleaseController.builder(h.cluster, h.cluster)
            .clock(h.clock)
            .holder("me")
            .ids(() -> "id-1")
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Done) {
                    intents.add(h.cluster.leaseIntent(NS, "app"));
                  }
                })
            .build();
    Payloads p = payloads(web("web:1"), creds("pw"));

    CastResult cast = controller.cast(spec("app", p), p);

    assertThat(h.cluster.operations())
        .filteredOn(CastTest::recordOrWrite)
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify",
            "record:create:default/app#1:deployed");
    // the record names the attempt its lease named: whoever took the lease over would know it
    String attempt = cast.release().attempt();
    assertThat(attempt).matches("[0-9a-f]{16}");
    assertThat(intents)
        .hasSize(3)
        .containsOnly(
            Optional.of(
                "{\"v\":1,\"operation\":\"cast\",\"attempt\":\""
                    + attempt
                    + "\",\"releaseId\":\"id-1\",\"objects\":"
                    + "[\"Secret/default/creds\",\"apps/Deployment/default/web\","
                    + "\"Service/default/web\"]}"));
    assertThat(h.cluster.leaseIntent(NS, "app")).isEmpty();
  }

  @Test
  void overAStoreThatKeepsNoLeaseIntentsPendingIsRecordedBeforeTheFirstWriteAndDeployedAfter() {
    Fixtures.Harness pending = Fixtures.Harness.withoutLeaseIntents("me");
    pending.cast("app", payloads(web("web:1"), creds("pw")));

    assertThat(pending.cluster.operations())
        .filteredOn(CastTest::recordOrWrite)
        .containsExactly(
            "record:create:default/app#1:pending",
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify",
            "record:update:default/app#1:deployed");
  }

  @Test
  void upgradeAppliesVerifiesThenPrunesLast() {
    h.cast("app", payloads(configMap("a", "1"), configMap("b", "1")));
    h.cluster.clearOperations();

    CastResult r = h.cast("app", payloads(configMap("a", "2")));

    assertThat(h.cluster.writes())
        .containsExactly("apply:ConfigMap/default/a", "verify", "delete:ConfigMap/default/b");
    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(r.plan().changes())
        .extracting(c -> c.action() + " " + c.ref().key())
        .containsExactly(
            "REFERENCE Namespace//default",
            "UPDATE ConfigMap/default/a",
            "PRUNE ConfigMap/default/b");
    assertThat(h.cluster.objects()).containsExactly(cm("a"));
    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void pruneGoesInReverseDependencyOrder() {
    h.cast(
        "app",
        payloads(
            web("web:1"),
            creds("pw"),
            configMap("a", "1"),
            Fixtures.volume("data", dev.capstan.release.model.VolumeSpec.ReclaimPolicy.DELETE)));
    h.cluster.clearOperations();

    // the claim is a protected kind: its prune is approved by name (DeleteGateTest)
    Payloads keep = payloads(configMap("keep", "1"));
    ReleaseSpec spec = Fixtures.spec("app", keep);
    h.controller.cast(
        spec.withOptions(
            spec.options()
                .withDeleteGate(
                    spec.options().deleteGate().approving(java.util.List.of(Fixtures.DATA)))),
        keep);

    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:ConfigMap/default/keep",
            "verify",
            "delete:Service/default/web",
            "delete:apps/Deployment/default/web",
            "delete:Secret/default/creds",
            "delete:ConfigMap/default/a",
            "delete:PersistentVolumeClaim/default/data");
  }

  @Test
  void identicalSecondCastWritesNoObjectOnlyTheRecord() {
    Payloads p = payloads(web("web:1"), creds("pw"), configMap("settings", "x"));
    h.cast("app", p);
    h.cluster.clearOperations();

    CastResult r = h.cast("app", p);

    assertThat(h.cluster.writes()).containsExactly("verify");
    assertThat(r.plan().changesNothing()).isTrue();
    assertThat(r.plan().counts()).containsEntry(Action.UNCHANGED, 4);
    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(h.cluster.counts())
        .containsEntry(Operation.APPLY, 0)
        .containsEntry(Operation.DELETE, 0)
        .containsEntry(Operation.RECORD_CREATE, 1);
  }

  @Test
  void objectsAreObservedInOneBatchPerKindAndNamespace() {
    Payloads p =
        payloads(configMap("a", "1"), configMap("b", "1"), configMap("c", "1"), creds("pw"));
    h.cluster.clearOperations();

    h.controller.plan(spec("app", p));

    // no record yet: the home namespace is observed too
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("observe:"))
        .containsExactlyInAnyOrder(
            "observe:Namespace/", "observe:ConfigMap/default", "observe:Secret/default");

    h.cast("app", p);
    h.cluster.clearOperations();
    h.controller.plan(spec("app", p));

    // the record, read from the release's namespace, proves it
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("observe:"))
        .containsExactlyInAnyOrder("observe:ConfigMap/default", "observe:Secret/default");
  }

  @Test
  void driftIsPlannedAsRepairAndCorrected() {
    Payloads p = payloads(configMap("settings", "v1"));
    h.cast("app", p);
    h.cluster.edit(SETTINGS, m -> m.with("data.value", "edited by hand"));

    Plan plan = h.controller.plan(spec("app", p));
    assertThat(plan.changes(Action.REPAIR))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref()).isEqualTo(SETTINGS);
              assertThat(c.reason()).isEqualTo("drift: field data.value set by edit");
            });

    h.cluster.clearOperations();
    h.cast("app", p);
    assertThat(h.cluster.writes()).containsExactly("apply:ConfigMap/default/settings", "verify");
    assertThat(h.cluster.object(SETTINGS)).contains(obj(configMap("settings", "v1")));
  }

  @Test
  void objectDeletedOutOfBandIsRecreated() {
    Payloads p = payloads(web("web:1"), creds("pw"));
    h.cast("app", p);
    h.cluster.deleteOutOfBand(CREDS);

    CastResult r = h.cast("app", p);

    assertThat(r.plan().changes(Action.CREATE))
        .singleElement()
        .satisfies(c -> assertThat(c.reason()).isEqualTo("recreate: deleted out of band"));
    assertThat(h.cluster.object(CREDS)).contains(obj(creds("pw")));
    assertThat(h.cluster.stamp(CREDS).orElseThrow().revision()).isEqualTo(2);
  }

  @Test
  void aCastTakesTheLeaseFirstAndReadsTheRecordsOnceUnderIt() {
    h.cast("app", payloads(configMap("settings", "v1")));
    h.cluster.clearOperations();

    h.cast("app", payloads(configMap("settings", "v2")));

    assertThat(h.cluster.operations().subList(0, 3))
        .containsExactly(
            "lease:acquire:default/app", "record:read:default/app", "observe:ConfigMap/default");
    // revision 1 is left as stored (the history reads it superseded): no second read, no write
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("lease:") || op.startsWith("record:"))
        .containsExactly(
            "lease:acquire:default/app",
            "record:read:default/app",
            "record:create:default/app#2:deployed",
            "lease:release:default/app");
    assertThat(h.cluster.records("default", "app"))
        .extracting(s -> s.release().status())
        .containsExactly(ReleaseStatus.DEPLOYED, ReleaseStatus.DEPLOYED);
    assertThat(h.controller.history("default", "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void aCastThatWritesNoObjectRecordsItsRevisionOnceWithItsOutcome() {
    h.cast("app", payloads(configMap("settings", "v1")));
    h.cluster.clearOperations();

    CastResult r = h.cast("app", payloads(configMap("settings", "v1")));

    assertThat(r.plan().changesNothing()).isTrue();
    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    // no pending record: nothing can be left half-done by a cast that writes no object
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("lease:") || op.startsWith("record:"))
        .containsExactly(
            "lease:acquire:default/app",
            "record:read:default/app",
            "record:create:default/app#2:deployed",
            "lease:release:default/app");
    assertThat(h.cluster.writes()).containsExactly("verify"); // no object written
  }

  @Test
  void aCastThatWritesNoObjectButFindsItUnhealthyRecordsItsRevisionFailed() {
    h.cluster.neverReady("web:broken", "ImagePullBackOff");
    Payloads broken = payloads(web("web:broken"), creds("pw"));
    assertThatThrownBy(() -> h.cast("app", broken)).isInstanceOf(CastFailedException.class);
    h.cluster.clearOperations();

    // the objects are as revision 1 wrote them, but it failed: every service is verified again
    assertThatThrownBy(() -> h.cast("app", broken))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> {
              assertThat(e.result().plan().changesNothing()).isTrue();
              assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
              assertThat(e.result().release().revision()).isEqualTo(2);
            });
    // revision 2 retried revision 1's payloads and failed too: it takes revision 1's place
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:") && !op.startsWith("record:read"))
        .containsExactly("record:create:default/app#2:failed", "record:delete:default/app#1");
    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(tuple(2, ReleaseStatus.FAILED));
  }

  @Test
  void aLeaseThatProvesTheNamespaceSparesObservingIt() {
    h.cast("app", payloads(configMap("settings", "v1")));
    // a store whose lease lives in the release's namespace (as a Kubernetes Lease does)
    Store store = Mockito.spy(h.cluster);
    Mockito.doAnswer(
            call -> {
              LeaseGrant grant = (LeaseGrant) call.callRealMethod();
              return new LeaseGrant(
                  grant.lease(), grant.takenOver(), true, grant.version(), grant.takenOverIntent());
            })
        .when(store)
        .acquireLease(
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any());
    ReleaseController controller = ReleaseController.builder(h.cluster, store).build();
    h.cluster.clearOperations();

    Payloads p = payloads(configMap("settings", "v2"));
    CastResult r = controller.cast(spec("app", p), p);

    assertThat(r.plan().changes(Action.REFERENCE))
        .extracting(c -> c.ref().key())
        .containsExactly("Namespace//default");
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("observe:"))
        .containsExactly("observe:ConfigMap/default");
    // a plan made before the lease (the reviewed path) has the record it read from the namespace
    // for proof instead
    h.cluster.clearOperations();
    controller.plan(spec("app", p));
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("observe:"))
        .containsExactly("observe:ConfigMap/default");
  }

  @Test
  void aLeaseRefusedWith404BecauseTheNamespaceIsMissingFallsBackToPlanningFirst() {
    Store store = Mockito.spy(h.cluster);
    Mockito.doThrow(
            new ClusterException(
                "create",
                "Lease",
                "team-c",
                "capstan.release.v1.app",
                404,
                "namespaces \"team-c\" not found",
                null))
        .when(store)
        .acquireLease(
            ArgumentMatchers.eq("team-c"),
            ArgumentMatchers.eq("app"),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any());
    ReleaseController controller = ReleaseController.builder(h.cluster, store).build();
    Payloads p = payloads(ConfigMapSpec.of("team-c", "settings", Map.of("k", "v")));

    // the plan, made first, names the missing namespace; the lease is not tried again
    assertThatThrownBy(() -> controller.cast(ReleaseSpec.of("team-c", "app", p), p))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageContaining("Namespace//team-c");
    Mockito.verify(store, Mockito.times(1))
        .acquireLease(
            ArgumentMatchers.eq("team-c"),
            ArgumentMatchers.eq("app"),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any(),
            ArgumentMatchers.any());
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.counts()).containsEntry(Operation.RECORD_CREATE, 0);
  }

  @Test
  void unmanagedObjectIsAConflictAndNothingIsWritten() {
    h.cluster.put(configMap("settings", "someone else's"));
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.cast("app", payloads(configMap("settings", "mine"), creds("pw"))))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e -> {
              assertThat(e.plan().conflicts())
                  .singleElement()
                  .satisfies(
                      c ->
                          assertThat(c.reason())
                              .isEqualTo(
                                  "exists and is unmanaged; pass adopt (the CLI's --adopt) to take ownership"));
              assertThat(e.getMessage()).contains("ConfigMap/default/settings");
            });
    assertThat(h.cluster.writes()).isEmpty();
    // planned under the lease (taken first, one record read), which is given up
    assertThat(h.cluster.counts())
        .containsEntry(Operation.RECORD_READ, 1)
        .containsEntry(Operation.RECORD_CREATE, 0)
        .containsEntry(Operation.LEASE_ACQUIRE, 1)
        .containsEntry(Operation.LEASE_RELEASE, 1);
    assertThat(h.cluster.object(SETTINGS)).contains(obj(configMap("settings", "someone else's")));
  }

  @Test
  void adoptTakesOwnershipOfAnUnmanagedObject() {
    h.cluster.put(configMap("settings", "old"));
    Payloads p = payloads(configMap("settings", "mine"));

    CastResult r = h.controller.cast(spec("app", p).withAdopt(true), p);

    assertThat(r.plan().changes(Action.ADOPT)).hasSize(1);
    assertThat(h.cluster.stamp(SETTINGS).orElseThrow().owner().name()).isEqualTo("app");
    assertThat(h.cluster.object(SETTINGS)).contains(obj(configMap("settings", "mine")));
  }

  @Test
  void objectOfAnotherReleaseIsNeverTakenDeletedOrReverted() {
    h.cast("other", payloads(configMap("shared", "theirs")));
    OwnershipStamp theirs = h.cluster.stamp(cm("shared")).orElseThrow();
    h.cluster.clearOperations();

    // a cast that wants it, even with adopt, is refused
    Payloads wants = payloads(configMap("shared", "mine"));
    assertThatThrownBy(() -> h.controller.cast(spec("app", wants).withAdopt(true), wants))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e ->
                assertThat(e.plan().conflicts().get(0).reason())
                    .isEqualTo("owned by release default/other; never taken over"));

    // a release whose record (forged here) lists it never prunes, reverts or uninstalls it
    h.cast("app", payloads(configMap("mine", "1")));
    var stored = h.cluster.latestRecord(NS, "app").orElseThrow();
    List<OwnedResource> forged = new java.util.ArrayList<>(stored.release().owns());
    forged.add(new OwnedResource(cm("shared"), theirs.contentHash()));
    h.cluster.updateRecord(stored.release().withOwns(forged), stored.version());

    Plan prunePlan = h.controller.plan(spec("app", payloads(configMap("mine", "1"))));
    assertThat(prunePlan.changes()).noneMatch(c -> c.ref().equals(cm("shared")));

    h.cluster.neverReady("web:broken", "ImagePullBackOff");
    Payloads failing = payloads(configMap("mine", "1"), web("web:broken"), creds("pw"));
    assertThatThrownBy(() -> h.controller.cast(spec("app", failing).withAtomic(true), failing))
        .isInstanceOf(CastFailedException.class);
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(h.cluster.writes()).noneMatch(op -> op.endsWith("ConfigMap/default/shared"));
    assertThat(h.cluster.stamp(cm("shared"))).contains(theirs);
    assertThat(h.cluster.object(cm("shared"))).contains(obj(configMap("shared", "theirs")));
  }

  @Test
  void applyFailureLeavesFailedRecordAndPrunesNothing() {
    h.cast("app", payloads(configMap("a", "1"), configMap("b", "1")));
    h.cluster.faults().failOn(Operation.APPLY, "ConfigMap/default/a");
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.cast("app", payloads(configMap("a", "2"))))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> {
              Release failed = e.result().release();
              assertThat(failed.status()).isEqualTo(ReleaseStatus.FAILED);
              assertThat(failed.failure())
                  .isEqualTo(
                      "apply ConfigMap/default/a failed: injected fault on ConfigMap/default/a");
              assertThat(failed.owns())
                  .extracting(OwnedResource::ref)
                  .containsExactly(cm("a"), cm("b"));
              assertThat(e.result().revert()).isEqualTo(CastResult.Revert.NOT_ATTEMPTED);
            });
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.objects()).containsExactly(cm("a"), cm("b"));
    assertThat(h.controller.get(NS, "app").orElseThrow().status()).isEqualTo(ReleaseStatus.FAILED);
  }

  @Test
  void failedAttemptsCreatedObjectsArePrunedByTheNextSuccessfulCast() {
    h.cast("app", payloads(configMap("a", "1")));
    h.cluster.faults().failOn(Operation.APPLY, "ConfigMap/default/c");
    assertThatThrownBy(
            () ->
                h.cast(
                    "app", payloads(configMap("a", "1"), configMap("b", "1"), configMap("c", "1"))))
        .isInstanceOf(CastFailedException.class);
    assertThat(h.cluster.objects()).containsExactly(cm("a"), cm("b"));
    assertThat(h.controller.get(NS, "app").orElseThrow().owns())
        .extracting(OwnedResource::ref)
        .containsExactly(cm("a"), cm("b"), cm("c"));

    h.cluster.faults().clear();
    h.cluster.clearOperations();
    CastResult r = h.cast("app", payloads(configMap("a", "1")));

    assertThat(r.plan().changes(Action.PRUNE)).extracting(c -> c.ref()).containsExactly(cm("b"));
    assertThat(h.cluster.writes()).containsExactly("verify", "delete:ConfigMap/default/b");
    assertThat(h.cluster.objects()).containsExactly(cm("a"));
  }

  @Test
  void serviceThatNeverBecomesReadyFailsTheCastWithTheReason() {
    h.cluster.neverReady("web:broken", "CrashLoopBackOff: exit code 1");

    assertThatThrownBy(() -> h.cast("app", payloads(web("web:broken"), creds("pw"))))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e ->
                assertThat(e.result().release().failure())
                    .isEqualTo(
                        "verify failed: apps/Deployment/default/web is not ready:"
                            + " CrashLoopBackOff: exit code 1"));
    assertThat(h.cluster.objects()).containsExactly(CREDS, WEB, WEB_SERVICE);
  }

  @Test
  void planPersistsNothing() {
    Payloads p = payloads(web("web:1"), creds("pw"));
    h.cluster.clearOperations();

    Plan plan = h.controller.plan(spec("app", p));

    assertThat(plan.revision()).isEqualTo(1);
    assertThat(h.cluster.operations())
        .allMatch(op -> op.startsWith("observe:") || op.startsWith("record:read"));
    assertThat(h.controller.get(NS, "app")).isEmpty();
    assertThat(h.cluster.objects()).isEmpty();
  }

  @Test
  void historyIsCappedAtMaxHistory() {
    var controller =
        ReleaseController.builder(h.cluster, h.cluster).clock(h.clock).maxHistory(3).build();
    for (int i = 1; i <= 5; i++) {
      Payloads p = payloads(configMap("a", Integer.toString(i)));
      controller.cast(spec("app", p), p);
    }

    assertThat(controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(5, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(4, ReleaseStatus.SUPERSEDED),
            org.assertj.core.groups.Tuple.tuple(3, ReleaseStatus.SUPERSEDED));
    assertThat(h.cluster.recordCount(NS, "app")).isEqualTo(3);
  }

  @Test
  void failedRevisionsCountAgainstMaxHistoryAndARetryOfOneReplacesIt() {
    var controller =
        ReleaseController.builder(h.cluster, h.cluster).clock(h.clock).maxHistory(3).build();
    for (int i = 1; i <= 3; i++) {
      Payloads p = payloads(configMap("a", Integer.toString(i)));
      controller.cast(spec("app", p), p);
    }
    h.cluster.faults().failAlways(Operation.APPLY, "ConfigMap/default/a", "refused");

    Payloads bad = payloads(configMap("a", "bad"));
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> controller.cast(spec("app", bad), bad))
          .isInstanceOf(CastFailedException.class);
    }

    // five attempts (revisions 4 to 8) of the same payloads: each replaced the one before
    assertThat(controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(8, ReleaseStatus.FAILED),
            tuple(3, ReleaseStatus.DEPLOYED),
            tuple(2, ReleaseStatus.SUPERSEDED));

    for (String other : List.of("bad2", "bad3")) {
      Payloads p = payloads(configMap("a", other));
      assertThatThrownBy(() -> controller.cast(spec("app", p), p))
          .isInstanceOf(CastFailedException.class);
    }

    // other payloads are other failures, each kept within maxHistory; the newest deployed
    // revision (what a rollback goes back to) is kept beyond it: maxHistory + 1 records
    assertThat(controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(10, ReleaseStatus.FAILED),
            tuple(9, ReleaseStatus.FAILED),
            tuple(8, ReleaseStatus.FAILED),
            tuple(3, ReleaseStatus.DEPLOYED));
    assertThat(h.cluster.recordCount(NS, "app")).isEqualTo(4);
  }

  @Test
  void rollbackCastsTheOldRevisionsPayloadsAsANewRevision() {
    h.cast("app", payloads(configMap("a", "1"), creds("v1")));
    h.cast("app", payloads(configMap("a", "2"), configMap("b", "2")));
    h.cluster.clearOperations();

    CastResult r = h.controller.rollback(NS, "app", 1);

    assertThat(r.release().revision()).isEqualTo(3);
    assertThat(r.release().description()).isEqualTo("rollback to 1");
    assertThat(r.release().payloads()).isEqualTo(payloads(configMap("a", "1"), creds("v1")));
    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:ConfigMap/default/a",
            "apply:Secret/default/creds",
            "verify",
            "delete:ConfigMap/default/b");
    assertThat(h.cluster.object(CREDS)).contains(obj(creds("v1")));
    assertThat(h.controller.history(NS, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(3, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.SUPERSEDED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
  }

  @Test
  void rollbackToAnUnknownRevisionIsNotFound() {
    h.cast("app", payloads(configMap("a", "1")));

    assertThatThrownBy(() -> h.controller.rollback(NS, "app", 7))
        .isInstanceOf(ReleaseNotFoundException.class)
        .hasMessage("release default/app has no revision 7");
  }

  @Test
  void aStorageClassListedAsAReferenceAndTheNamespaceAreReferencedNeverOwned() {
    h.cluster.createStorageClass("fast");
    Payloads p =
        payloads(
            Fixtures.volume("data", dev.capstan.release.model.VolumeSpec.ReclaimPolicy.DELETE)
                .withStorageClass("fast"));

    CastResult r =
        h.controller.cast(spec("app", p).withReference(ResourceRef.storageClass("fast")), p);

    assertThat(r.plan().changes(Action.REFERENCE))
        .extracting(c -> c.ref().key())
        .containsExactly("Namespace//default", "storage.k8s.io/StorageClass//fast");
    assertThat(r.release().references())
        .containsExactly(ResourceRef.namespace("default"), ResourceRef.storageClass("fast"));
    assertThat(r.release().owns()).extracting(OwnedResource::ref).containsExactly(Fixtures.DATA);
  }

  @Test
  void aClaimNamingAClassNoObjectBacksIsCastButAMissingReferencedClassIsAConflict() {
    Payloads p =
        payloads(
            Fixtures.volume("data", dev.capstan.release.model.VolumeSpec.ReclaimPolicy.DELETE)
                .withStorageClass("missing"));

    // static binding: a claim's class needs no StorageClass object
    CastResult r = h.cast("app", p);
    assertThat(r.plan().changes(Action.CONFLICT)).isEmpty();
    assertThat(r.release().references()).containsExactly(ResourceRef.namespace("default"));

    assertThatThrownBy(
            () ->
                h.controller.cast(
                    spec("app", p).withReference(ResourceRef.storageClass("missing")), p))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageContaining(
            "storage.k8s.io/StorageClass//missing: referenced storageclass 'missing' does not exist; create it"
                + " first");
  }

  @Test
  void aMissingHomeNamespaceIsCreatedBeforeTheLeaseAndRecordsThatLiveInIt() {
    var cm = ConfigMapSpec.of("team-b", "settings", Map.of("k", "v"));
    Payloads p = payloads(cm);

    h.controller.cast(ReleaseSpec.of("team-b", "app", p).withCreateNamespace(true), p);

    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("namespace:") || op.startsWith("lease:acquire"))
        .containsExactly("namespace:team-b", "lease:acquire:team-b/app");
    assertThat(h.cluster.writes())
        .containsExactly("namespace:team-b", "apply:ConfigMap/team-b/settings", "verify");
  }

  @Test
  void createNamespaceCreatesAMissingNamespaceWithoutOwningIt() {
    var cm = ConfigMapSpec.of("team-a", "settings", Map.of("k", "v"));
    Payloads p = payloads(cm);

    assertThatThrownBy(() -> h.cast("app", p))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageContaining(
            "referenced namespace 'team-a' does not exist; create it, or pass createNamespace (the CLI's --create-namespace)");

    h.cluster.clearOperations();
    CastResult r = h.controller.cast(spec("app", p).withCreateNamespace(true), p);

    assertThat(h.cluster.writes())
        .containsExactly("namespace:team-a", "apply:ConfigMap/team-a/settings", "verify");
    assertThat(r.release().references()).contains(ResourceRef.namespace("team-a"));
    assertThat(r.release().owns()).extracting(OwnedResource::ref).containsExactly(cm.ref());

    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    assertThat(h.cluster.namespaces()).contains("team-a");
  }

  @Test
  void parallelApplyOfOneKindStillFinishesAKindBeforeTheNext() {
    var parallel = new Fixtures.Harness("me", 4);
    Payloads p =
        payloads(
            web("web:1"),
            creds("pw"),
            configMap("a", "1"),
            configMap("b", "1"),
            configMap("c", "1"),
            configMap("d", "1"));

    parallel.cast("app", p);

    List<String> writes = parallel.cluster.writes();
    assertThat(writes.subList(0, 4))
        .containsExactlyInAnyOrder(
            "apply:ConfigMap/default/a",
            "apply:ConfigMap/default/b",
            "apply:ConfigMap/default/c",
            "apply:ConfigMap/default/d");
    assertThat(writes.subList(4, writes.size()))
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify");
  }

  /** A record write, an object write or the health wait, among a cluster's operations. */
  private static boolean recordOrWrite(String op) {
    return op.startsWith("record:create")
        || op.startsWith("record:update")
        || op.startsWith("apply:")
        || op.equals("verify");
  }
}
