package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SETTINGS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.ManualClock;
import dev.capstan.release.error.UninstallFailedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.UninstallResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Writes and deletes of one rank run in parallel (bounded), ranks one after the other: the
 * operation log is asserted as a sequence of sets, one per rank.
 */
class ParallelWritesTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final List<ReleaseEvent> events = new CopyOnWriteArrayList<>();
  private Consumer<ReleaseEvent> hook = e -> {};
  private final ReleaseController controller =
      ReleaseController.builder(cluster, cluster)
          .clock(ManualClock.at(T0))
          .holder("me")
          .parallelism(4)
          .ids(() -> "id-1")
          .listener(
              e -> {
                events.add(e);
                hook.accept(e);
              })
          .build();

  private final Payloads all =
      payloads(
          web("web:1"),
          creds("pw"),
          configMap("a", "1"),
          configMap("b", "1"),
          configMap("c", "1"),
          configMap("d", "1"),
          configMap("e", "1"),
          configMap("settings", "1"));

  private static final List<Set<String>> CONFIG_MAPS =
      List.of(
          Set.of(
              "ConfigMap/default/a",
              "ConfigMap/default/b",
              "ConfigMap/default/c",
              "ConfigMap/default/d",
              "ConfigMap/default/e",
              "ConfigMap/default/settings"));

  /** The operations cut into consecutive groups of the given sizes, each as a set. */
  private static List<Set<String>> groups(List<String> ops, int... sizes) {
    List<Set<String>> out = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      out.add(Set.copyOf(ops.subList(at, at + size)));
      at += size;
    }
    assertThat(at).as("every operation is in a group").isEqualTo(ops.size());
    return out;
  }

  private static Set<String> prefixed(String prefix, Set<String> keys) {
    return keys.stream().map(k -> prefix + k).collect(java.util.stream.Collectors.toSet());
  }

  @Test
  void aCastWritesEachRankInParallelAndTheRanksInOrder() {
    controller.cast(spec("app", all), all);

    assertThat(groups(cluster.writes(), 6, 1, 1, 1, 1))
        .containsExactly(
            prefixed("apply:", CONFIG_MAPS.get(0)),
            Set.of("apply:Secret/default/creds"),
            Set.of("apply:apps/Deployment/default/web"),
            Set.of("apply:Service/default/web"),
            Set.of("verify"));
  }

  @Test
  void uninstallDeletesEachRankInParallelInReverseOrderWithoutReadingFirst() {
    controller.cast(spec("app", all), all);
    cluster.clearOperations();

    UninstallResult u = controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(groups(cluster.writes(), 1, 1, 1, 6))
        .containsExactly(
            Set.of("delete:Service/default/web"),
            Set.of("delete:apps/Deployment/default/web"),
            Set.of("delete:Secret/default/creds"),
            prefixed("delete:", CONFIG_MAPS.get(0)));
    assertThat(cluster.operations())
        .as("one observation per kind, no read per object")
        .filteredOn(op -> op.startsWith("observe:"))
        .hasSize(4);
    assertThat(u.deleted()).hasSize(9).isSortedAccordingTo(ResourceRef.PRUNE_ORDER);
    assertThat(u.release().status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(cluster.objects()).isEmpty();
  }

  @Test
  void pruneDeletesEachRankInParallelAfterEveryApply() {
    controller.cast(spec("app", all), all);
    Payloads fewer = payloads(configMap("settings", "2"));
    cluster.clearOperations();

    controller.cast(spec("app", fewer), fewer);

    assertThat(groups(cluster.writes(), 1, 1, 1, 1, 1, 5))
        .containsExactly(
            Set.of("apply:ConfigMap/default/settings"),
            Set.of("verify"),
            Set.of("delete:Service/default/web"),
            Set.of("delete:apps/Deployment/default/web"),
            Set.of("delete:Secret/default/creds"),
            Set.of(
                "delete:ConfigMap/default/a",
                "delete:ConfigMap/default/b",
                "delete:ConfigMap/default/c",
                "delete:ConfigMap/default/d",
                "delete:ConfigMap/default/e"));
  }

  @Test
  void uninstallWithWaitWaitsForTheDeletionsOnceAfterTheLastDelete() {
    controller.cast(spec("app", all), all);
    cluster.clearOperations();
    events.clear();

    controller.uninstall(NS, "app", UninstallOptions.defaults().withWait(Duration.ofSeconds(30)));

    assertThat(cluster.writes()).hasSize(9);
    List<String> ops = cluster.operations();
    assertThat(ops.indexOf("await-deleted"))
        .isGreaterThan(ops.indexOf("delete:ConfigMap/default/settings"))
        .isLessThan(ops.indexOf("record:update:default/app#1:uninstalled"));
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.Verified)
        .containsExactly(new ReleaseEvent.Verified(NS + "/app", 9));
  }

  @Test
  void anUnfinishedDeletionFailsTheUninstallWhichKeepsOwningIt() {
    controller.cast(spec("app", all), all);
    hook =
        e -> {
          if (e instanceof ReleaseEvent.Done d && d.ref().equals(SETTINGS)) {
            cluster.put(configMap("settings", "back"));
          }
        };

    UninstallFailedException failed =
        catchThrowableOfType(
            UninstallFailedException.class,
            () ->
                controller.uninstall(
                    NS, "app", UninstallOptions.defaults().withWait(Duration.ofSeconds(30))));

    assertThat(failed)
        .hasMessage(
            "uninstall of release default/app stopped at ConfigMap/default/settings: deletion not"
                + " finished after 30s: ConfigMap/default/settings still exists; the release"
                + " stays uninstalling, run uninstall again to continue");
    Release left = controller.get(NS, "app").orElseThrow();
    assertThat(left.status()).isEqualTo(ReleaseStatus.UNINSTALLING);
    assertThat(left.owns()).extracting(OwnedResource::ref).containsExactly(SETTINGS);
  }

  @Test
  void anUninstallDeletesAnOwnedObjectAControllerChangedSinceItWasObserved() {
    controller.cast(spec("app", all), all);
    hook =
        e -> {
          if (e instanceof ReleaseEvent.Started s
              && s.ref().equals(SETTINGS)
              && s.action() == Action.PRUNE) {
            // a controller updates it: same object, still the release's, a new version
            cluster.edit(SETTINGS, m -> configMap("settings", "edited").render().get(0));
          }
        };

    UninstallResult result = controller.uninstall(NS, "app", UninstallOptions.defaults());

    // refused on the version it was observed at, looked at again, deleted on that look
    assertThat(cluster.operations())
        .filteredOn(
            op ->
                op.endsWith("ConfigMap/default/settings") || op.equals("observe:ConfigMap/default"))
        .containsSubsequence(
            "fenced:delete:ConfigMap/default/settings",
            "observe:ConfigMap/default",
            "delete:ConfigMap/default/settings");
    assertThat(result.deleted()).contains(SETTINGS).hasSize(all.refs().size());
    assertThat(cluster.objects()).isEmpty();
    assertThat(controller.get(NS, "app").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
  }

  @Test
  void anUninstallDeleteOfAnObjectNoLongerTheReleasesIsFencedAndTheReleaseKeepsOwningIt() {
    controller.cast(spec("app", all), all);
    hook =
        e -> {
          if (e instanceof ReleaseEvent.Started s
              && s.ref().equals(SETTINGS)
              && s.action() == Action.PRUNE) {
            // someone re-stamps it as another release's: ownership, not just the version, moved
            cluster.put(
                configMap("settings", "edited"),
                dev.capstan.release.model.OwnershipStamp.of(
                    new dev.capstan.release.model.ReleaseIdentity(NS, "other", "id-9"),
                    1,
                    "sha256:" + "0".repeat(64)));
          }
        };

    UninstallFailedException failed =
        catchThrowableOfType(
            UninstallFailedException.class,
            () -> controller.uninstall(NS, "app", UninstallOptions.defaults()));

    assertThat(failed.failedAt()).isEqualTo(SETTINGS);
    assertThat(failed.getCause())
        .hasMessageStartingWith("ConfigMap/default/settings changed since the plan (uid ")
        .hasMessageEndingWith(
            "): it was modified, it carries the stamp of release default/other; not deleted");
    Release left = controller.get(NS, "app").orElseThrow();
    assertThat(left.status()).isEqualTo(ReleaseStatus.UNINSTALLING);
    // ConfigMaps of the same rank not yet started when the fence failed are not started at all
    assertThat(left.owns())
        .extracting(OwnedResource::ref)
        .contains(SETTINGS)
        .allMatch(ref -> ref.kind().equals(Kind.CONFIG_MAP));
    assertThat(cluster.object(SETTINGS).orElseThrow().get("data.value")).isEqualTo("edited");

    hook = e -> {};
    UninstallResult retried = controller.uninstall(NS, "app", UninstallOptions.defaults());
    // the other release's object is not the release's to delete
    assertThat(retried.deleted()).doesNotContain(SETTINGS).hasSize(left.owns().size() - 1);
    assertThat(cluster.objects()).containsExactly(SETTINGS);
  }
}
