package dev.capstan.release.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InMemoryClusterTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ReleaseIdentity owner = new ReleaseIdentity("default", "app", "id-1");
  private final ConfigMapSpec cm = ConfigMapSpec.of("default", "c", Map.of("k", "v"));

  @Test
  void deleteAndUnstampOnlyTouchWhatTheOwnerOwns() {
    ReleaseIdentity other = new ReleaseIdentity("default", "other", "id-2");
    cluster.put(cm, OwnershipStamp.of(other, 1, "sha256:" + "0".repeat(64)));

    assertThat(cluster.delete(cm.ref(), owner)).isFalse();
    assertThat(cluster.unstamp(cm.ref(), owner)).isFalse();
    assertThat(cluster.object(cm.ref())).contains(cm.render().get(0));
    assertThat(cluster.delete(cm.ref(), other)).isTrue();
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void faultsFailTheNthCallOnceAndTargetsEveryTime() {
    cluster.faults().failOn(Operation.APPLY, 2).failOn(Operation.DELETE, "ConfigMap/default/c");

    cluster.apply(cm.render().get(0), null);
    assertThatThrownBy(() -> cluster.apply(cm.render().get(0), null))
        .isInstanceOf(ClusterException.class)
        .hasMessage("apply ConfigMap/default/c failed: injected fault on call 2");
    cluster.apply(cm.render().get(0), null);
    assertThatThrownBy(() -> cluster.delete(cm.ref(), owner)).isInstanceOf(ClusterException.class);
    assertThatThrownBy(() -> cluster.delete(cm.ref(), owner)).isInstanceOf(ClusterException.class);
    assertThat(cluster.counts())
        .containsEntry(Operation.APPLY, 3)
        .containsEntry(Operation.DELETE, 2);
    assertThat(cluster.operations())
        .containsExactly("apply:ConfigMap/default/c", "apply:ConfigMap/default/c");
  }

  @Test
  void crashAfterLetsTheCallTakeEffectThenThrows() {
    cluster.faults().crashAfter(Operation.APPLY, 1);

    assertThatThrownBy(() -> cluster.apply(cm.render().get(0), null))
        .isInstanceOf(SimulatedCrash.class);
    assertThat(cluster.object(cm.ref())).contains(cm.render().get(0));
  }

  @Test
  void observeReturnsOnlyTheRequestedNamesThatExist() {
    cluster.put(cm);

    assertThat(cluster.observe(Kind.CONFIG_MAP, "default", Set.of("c", "missing")))
        .singleElement()
        .satisfies(o -> assertThat(o.ref()).isEqualTo(cm.ref()));
    assertThat(cluster.observe(Kind.NAMESPACE, "", Set.of("default", "nope"))).hasSize(1);
    assertThat(cluster.observe(Kind.STORAGE_CLASS, "", Set.of("standard"))).hasSize(1);
  }

  @Test
  void observeReportsAUidKeptAcrossWritesAndAVersionEveryWriteChanges() {
    cluster.apply(cm.render().get(0), null);
    var first = cluster.observe(Kind.CONFIG_MAP, "default", Set.of("c")).get(0);
    cluster.apply(cm.render().get(0), OwnershipStamp.of(owner, 1, "sha256:" + "0".repeat(64)));
    var second = cluster.observe(Kind.CONFIG_MAP, "default", Set.of("c")).get(0);
    cluster.deleteOutOfBand(cm.ref());
    cluster.apply(cm.render().get(0), null);
    var recreated = cluster.observe(Kind.CONFIG_MAP, "default", Set.of("c")).get(0);

    assertThat(first.uid()).isEqualTo("uid-1").isEqualTo(second.uid());
    assertThat(first.resourceVersion()).isEqualTo("1");
    assertThat(second.resourceVersion()).isEqualTo("2");
    assertThat(recreated.uid()).isEqualTo("uid-3");
    assertThat(recreated.resourceVersion()).isEqualTo("3");
  }

  @Test
  void stateRoundTripsObjectsRecordsAndLeases() {
    ReleaseController c = ReleaseController.builder(cluster, cluster).build();
    Payloads p = Payloads.of(cm, SecretSpec.of("default", "s", Map.of("pw", "x")));
    c.cast(ReleaseSpec.of("default", "app", p), p);
    cluster.addNamespace("extra").createStorageClass("fast").neverReady("img", "CrashLoopBackOff");
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    cluster.putLease("default", "other", new Lease("x", t, t.plus(Duration.ofMinutes(1))));

    InMemoryCluster copy = InMemoryCluster.importState(cluster.exportState());

    assertThat(copy.objects()).isEqualTo(cluster.objects());
    for (ResourceRef ref : cluster.objects()) {
      assertThat(copy.object(ref)).isEqualTo(cluster.object(ref));
      assertThat(copy.stamp(ref)).isEqualTo(cluster.stamp(ref));
    }
    assertThat(copy.namespaces()).containsExactlyInAnyOrder("default", "extra");
    assertThat(copy.lease("default", "other")).isEqualTo(cluster.lease("default", "other"));
    ReleaseController again = ReleaseController.builder(copy, copy).build();
    assertThat(again.history("default", "app")).isEqualTo(c.history("default", "app"));
    assertThat(again.plan(ReleaseSpec.of("default", "app", p)).changesNothing()).isTrue();
    assertThat(copy.exportState()).isEqualTo(cluster.exportState());
  }

  @Test
  void stateKeepsEachObjectsUidAndVersionAndLaterWritesCountOnFromThem() {
    ConfigMapSpec early = ConfigMapSpec.of("default", "z", Map.of("k", "v"));
    cluster.apply(early.render().get(0), null); // uid-1, version 1
    cluster.apply(cm.render().get(0), null); // uid-2, version 2
    cluster.apply(early.render().get(0), null); // uid-1, version 3

    InMemoryCluster copy = InMemoryCluster.importState(cluster.exportState());

    assertThat(copy.observe(Kind.CONFIG_MAP, "default", Set.of("c", "z")))
        .extracting(o -> o.ref().name() + " " + o.uid() + " " + o.resourceVersion())
        .containsExactlyInAnyOrder("c uid-2 2", "z uid-1 3");
    copy.deleteOutOfBand(cm.ref());
    copy.apply(cm.render().get(0), null);
    assertThat(copy.observe(Kind.CONFIG_MAP, "default", Set.of("c")))
        .extracting(o -> o.uid() + " " + o.resourceVersion())
        .containsExactly("uid-4 4");
  }

  @Test
  void stateKeepsEachRecordsVersionAndLaterRecordsCountOnFromThem() {
    ReleaseController c = ReleaseController.builder(cluster, cluster).build();
    Payloads web = Payloads.of(cm);
    c.cast(ReleaseSpec.of("default", "web", web), web);
    Payloads api = Payloads.of(ConfigMapSpec.of("default", "api-settings", Map.of("k", "v")));
    c.cast(ReleaseSpec.of("default", "api", api), api);
    String webVersion = cluster.latestRecord("default", "web").orElseThrow().version();
    String apiVersion = cluster.latestRecord("default", "api").orElseThrow().version();

    InMemoryCluster copy = InMemoryCluster.importState(cluster.exportState());

    // read back in key order (api before web), the versions stay those written
    assertThat(copy.latestRecord("default", "web").orElseThrow().version()).isEqualTo(webVersion);
    assertThat(copy.latestRecord("default", "api").orElseThrow().version()).isEqualTo(apiVersion);
    ReleaseController again = ReleaseController.builder(copy, copy).build();
    again.cast(ReleaseSpec.of("default", "web", web), web);
    assertThat(Long.parseLong(copy.latestRecord("default", "web").orElseThrow().version()))
        .isGreaterThan(Math.max(Long.parseLong(webVersion), Long.parseLong(apiVersion)));
  }

  @Test
  void aReportedStatusIsJudgedByTheHealthRulesKeptAcrossWritesAndClearedOnRequest() {
    cluster.apply(cm.render().get(0), null);
    ResourceRef ref = cm.ref();
    cluster.reportCondition(ref, "Ready", "False", "Waiting", "for the \u001b operator");
    cluster.reportCondition(ref, "Progressing", "True", "Working", "");
    cluster.reportCondition(ref, "Ready", "False", "Syncing", "2 of 3");

    // a ConfigMap has no health rule: current whatever it reports
    assertThat(cluster.awaitReady(java.util.List.of(ref), Duration.ofMinutes(1)))
        .isEqualTo(dev.capstan.release.port.Readiness.ready());

    ResourceRef widget = ResourceRef.of(Kind.of("example.com/v1", "Widget", true), "default", "w");
    cluster.serve(widget.kind());
    cluster.reportCondition(widget, "Ready", "False", "Syncing", "2 of 3");
    cluster.apply(
        dev.capstan.release.model.Manifest.of(
            Map.of(
                "apiVersion", "example.com/v1",
                "kind", "Widget",
                "metadata", Map.of("name", "w", "namespace", "default"))),
        null);
    assertThat(cluster.awaitReady(java.util.List.of(widget), Duration.ofMinutes(1)).describe())
        .isEqualTo("not ready after 1m: Widget default/w: Ready=False: Syncing: 2 of 3");

    InMemoryCluster copy = InMemoryCluster.importState(cluster.exportState());
    assertThat(copy.awaitReady(java.util.List.of(widget), Duration.ofMinutes(1)).describe())
        .isEqualTo("not ready after 1m: Widget default/w: Ready=False: Syncing: 2 of 3");
    assertThat(copy.exportState()).isEqualTo(cluster.exportState());

    cluster.clearStatus(widget);
    assertThat(cluster.awaitReady(java.util.List.of(widget), Duration.ofMinutes(1)).isReady())
        .isTrue();
  }

  @Test
  void importRejectsSomethingElse() {
    assertThatThrownBy(
            () ->
                InMemoryCluster.importState("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("format capstan.dev/in-memory-cluster.v2");
  }
}
