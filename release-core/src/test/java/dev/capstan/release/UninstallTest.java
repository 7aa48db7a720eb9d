package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.DATA;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SETTINGS;
import static dev.capstan.release.Fixtures.WEB;
import static dev.capstan.release.Fixtures.WEB_SERVICE;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.obj;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.volume;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.error.ReleaseNotFoundException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec.ReclaimPolicy;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import dev.capstan.release.result.UninstallResult;
import org.junit.jupiter.api.Test;

/** Uninstall: reverse order, reclaim policy, tombstones, purge, retries. */
class UninstallTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private Payloads all(ReclaimPolicy policy) {
    return payloads(web("web:1"), creds("pw"), configMap("settings", "x"), volume("data", policy));
  }

  @Test
  void deletesServiceThenSecretThenConfigmapThenVolumeAndLeavesATombstone() {
    h.cast("app", all(ReclaimPolicy.DELETE));
    h.cluster.clearOperations();

    UninstallResult u = h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:Service/default/web",
            "delete:apps/Deployment/default/web",
            "delete:Secret/default/creds",
            "delete:ConfigMap/default/settings",
            "delete:PersistentVolumeClaim/default/data");
    assertThat(u.deleted()).containsExactly(WEB_SERVICE, WEB, CREDS, SETTINGS, DATA);
    assertThat(u.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(u.release().owns()).isEmpty();
    assertThat(h.cluster.objects()).isEmpty();
    assertThat(h.controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(h.controller.history(NS, "app")).hasSize(1);
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("record:") && !op.startsWith("record:read"))
        .containsExactly("record:update:default/app#1:uninstalled");
  }

  @Test
  void anUninstallPinnedToARevisionRecordedOverSinceDeletesNothingAndSaysWhichWasRecorded() {
    h.cast("app", all(ReclaimPolicy.DELETE));
    h.cast(
        "app",
        payloads(
            web("web:2"),
            creds("pw"),
            configMap("settings", "x"),
            volume("data", ReclaimPolicy.DELETE)));
    h.cluster.clearOperations();

    assertThatThrownBy(
            () ->
                h.controller.uninstall(
                    NS, "app", UninstallOptions.defaults().withExpectedRevision(1)))
        .isInstanceOf(StaleRecordException.class)
        .hasMessage(
            "release default/app revision 1 was changed concurrently: revision 2 (DEPLOYED) was"
                + " recorded since; nothing was uninstalled");

    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.controller.history(NS, "app")).hasSize(2);

    UninstallResult u =
        h.controller.uninstall(NS, "app", UninstallOptions.defaults().withExpectedRevision(2));

    assertThat(u.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(u.deleted()).containsExactly(WEB_SERVICE, WEB, CREDS, SETTINGS, DATA);
  }

  @Test
  void retainVolumeIsUnstampedRecordedAndReadoptedByAReinstallWithoutAdopt() {
    h.cast("app", all(ReclaimPolicy.RETAIN));
    h.cluster.clearOperations();

    UninstallResult u = h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:Service/default/web",
            "delete:apps/Deployment/default/web",
            "delete:Secret/default/creds",
            "delete:ConfigMap/default/settings",
            "unstamp:PersistentVolumeClaim/default/data");
    assertThat(u.retained()).containsExactly(DATA);
    assertThat(u.release().retained()).containsExactly(DATA);
    assertThat(h.cluster.objects()).containsExactly(DATA);
    assertThat(h.cluster.stamp(DATA)).isEmpty();

    CastResult again = h.cast("app", all(ReclaimPolicy.RETAIN));

    assertThat(again.plan().changes(Action.ADOPT))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.ref()).isEqualTo(DATA);
              assertThat(c.reason()).isEqualTo("re-adopt, retained earlier");
            });
    assertThat(again.release().revision()).isEqualTo(2);
    assertThat(again.release().id()).isEqualTo(u.release().id());
    assertThat(again.release().retained()).isEmpty();
    assertThat(h.cluster.stamp(DATA).orElseThrow().owner().name()).isEqualTo("app");
  }

  @Test
  void keepVolumesRetainsADeleteVolume() {
    h.cast("app", all(ReclaimPolicy.DELETE));

    UninstallResult u =
        h.controller.uninstall(NS, "app", UninstallOptions.defaults().withKeepVolumes(true));

    assertThat(u.retained()).containsExactly(DATA);
    assertThat(h.cluster.objects()).containsExactly(DATA);
    assertThat(h.cluster.stamp(DATA)).isEmpty();
  }

  @Test
  void retainPolicyOnPruneUnstampsAndRecordsTheVolume() {
    h.cast("app", payloads(configMap("settings", "x"), volume("data", ReclaimPolicy.RETAIN)));
    h.cluster.clearOperations();

    CastResult r = h.cast("app", payloads(configMap("settings", "x")));

    assertThat(r.plan().changes(Action.RETAIN)).extracting(c -> c.ref()).containsExactly(DATA);
    assertThat(h.cluster.writes())
        .containsExactly("verify", "unstamp:PersistentVolumeClaim/default/data");
    assertThat(r.release().retained()).containsExactly(DATA);
    assertThat(h.cluster.stamp(DATA)).isEmpty();
  }

  @Test
  void purgeRemovesEveryRecordAndTheLease() {
    h.cast("app", payloads(configMap("settings", "1")));
    h.cast("app", payloads(configMap("settings", "2")));

    UninstallResult u =
        h.controller.uninstall(NS, "app", UninstallOptions.defaults().withPurge(true));

    assertThat(u.purged()).isTrue();
    assertThat(h.cluster.recordCount(NS, "app")).isZero();
    assertThat(h.controller.get(NS, "app")).isEmpty();
    assertThat(h.controller.list(NS, true)).isEmpty();
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void purgeOfATombstoneRemovesItsRecords() {
    h.cast("app", payloads(configMap("settings", "1")));
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    h.cluster.clearOperations();

    h.controller.uninstall(NS, "app", UninstallOptions.defaults().withPurge(true));

    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.recordCount(NS, "app")).isZero();
  }

  @Test
  void tombstoneIsHiddenFromListUnlessAsked() {
    h.cast("app", payloads(configMap("a", "1")));
    h.cast("gone", payloads(configMap("b", "1")));
    h.controller.uninstall(NS, "gone", UninstallOptions.defaults());

    assertThat(h.controller.list(NS, false)).extracting(Release::name).containsExactly("app");
    assertThat(h.controller.list(NS, true))
        .extracting(Release::name, Release::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("app", ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple("gone", ReleaseStatus.UNINSTALLED));
  }

  @Test
  void anUninstallInterruptedUnderALeaseNamingItIsRecordedUninstallingByTheNextHolder() {
    h.cast("app", all(ReclaimPolicy.DELETE));
    h.clock.advance(java.time.Duration.ofSeconds(1));
    // the uninstaller dies after its first delete: its lease names the uninstall, the record
    // still says deployed
    h.cluster.faults().crashAfter(Operation.DELETE, 1);
    assertThatThrownBy(() -> h.controller.uninstall(NS, "app", UninstallOptions.defaults()))
        .isInstanceOf(dev.capstan.release.memory.SimulatedCrash.class);
    h.cluster.faults().clear();
    assertThat(h.controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.leaseIntent(NS, "app").orElseThrow())
        .matches("\\{\"v\":1,\"operation\":\"uninstall\",\"attempt\":\"[0-9a-f]{16}\"}");

    h.clock.advance(java.time.Duration.ofMinutes(3));
    ReleaseController other = h.other("caster-b");
    assertThatThrownBy(
            () -> other.cast(spec("app", all(ReclaimPolicy.DELETE)), all(ReclaimPolicy.DELETE)))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(
            "release default/app is being uninstalled (revision 1); run uninstall again to finish"
                + " it before casting");
    Release recorded = h.controller.get(NS, "app").orElseThrow();
    assertThat(recorded.status()).isEqualTo(ReleaseStatus.UNINSTALLING);
    assertThat(recorded.failure())
        .isEqualTo(
            "interrupted: the lease of me expired at 2026-01-01T00:02:01Z before the uninstall"
                + " finished");

    UninstallResult u = other.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(u.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(h.cluster.objects()).isEmpty();
  }

  @Test
  void failureStopsLeavesUninstallingAndARetryContinues() {
    h.cast("app", all(ReclaimPolicy.DELETE));
    h.cluster.faults().failOn(Operation.DELETE, "ConfigMap/default/settings");

    assertThatThrownBy(() -> h.controller.uninstall(NS, "app", UninstallOptions.defaults()))
        .isInstanceOfSatisfying(
            UninstallFailedException.class,
            e -> {
              assertThat(e.failedAt()).isEqualTo(SETTINGS);
              assertThat(e.release().status()).isEqualTo(ReleaseStatus.UNINSTALLING);
              assertThat(e.release().owns())
                  .extracting(OwnedResource::ref)
                  .containsExactly(DATA, SETTINGS);
            });
    assertThat(h.controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLING);
    assertThatThrownBy(() -> h.cast("app", all(ReclaimPolicy.DELETE)))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(
            "release default/app is being uninstalled (revision 1); run uninstall again to finish"
                + " it before casting");

    h.cluster.faults().clear();
    h.cluster.clearOperations();
    UninstallResult u = h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(h.cluster.writes())
        .containsExactly(
            "delete:ConfigMap/default/settings", "delete:PersistentVolumeClaim/default/data");
    assertThat(u.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(h.cluster.objects()).isEmpty();
  }

  @Test
  void sharedKindsAreNeverDeleted() {
    h.cluster.createStorageClass("fast");
    h.cast("app", payloads(volume("data", ReclaimPolicy.DELETE).withStorageClass("fast")));

    h.controller.uninstall(NS, "app", UninstallOptions.defaults().withPurge(true));

    assertThat(h.cluster.namespaces()).contains("default");
    assertThat(
            h.controller
                .plan(
                    spec("x", payloads(volume("v", ReclaimPolicy.DELETE).withStorageClass("fast"))))
                .applyable())
        .isTrue();
  }

  @Test
  void uninstallOfAnUnknownReleaseIsNotFound() {
    assertThatThrownBy(() -> h.controller.uninstall(NS, "nope", UninstallOptions.defaults()))
        .isInstanceOf(ReleaseNotFoundException.class)
        .hasMessage("release default/nope not found");
    // the record is read under the lease; the lease of a release without one is deleted again
    assertThat(h.cluster.lease(NS, "nope")).isEmpty();
  }

  @Test
  void objectsNoLongerOursAreSkipped() {
    h.cast("app", payloads(configMap("settings", "x"), creds("pw")));
    // someone replaced the configmap with their own object
    h.cluster.deleteOutOfBand(SETTINGS);
    h.cluster.put(configMap("settings", "theirs"));
    h.cluster.clearOperations();

    UninstallResult u = h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(u.deleted()).containsExactly(CREDS);
    assertThat(h.cluster.object(SETTINGS)).contains(obj(configMap("settings", "theirs")));
    assertThat(h.cluster.objects())
        .containsExactly(ResourceRef.of(SETTINGS.kind(), NS, "settings"));
  }
}
