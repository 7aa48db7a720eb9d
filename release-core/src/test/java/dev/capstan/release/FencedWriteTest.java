package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SETTINGS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.mockito.ArgumentMatchers.any;

import dev.capstan.common.ManualClock;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.port.PreconditionFailedException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;

/**
 * Fenced writes: every write is conditioned on what the plan observed, so a write based on a stale
 * view fails instead of landing. The interleavings are exact: the second party acts from a listener
 * of the first, between its plan and its first write.
 */
class FencedWriteTest {
  private static final ResourceRef SHARED = ResourceRef.of(Kind.CONFIG_MAP, NS, "shared");
  private static final ResourceRef CREDS = ResourceRef.of(Kind.SECRET, NS, "creds");

  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ManualClock clock = ManualClock.at(T0);
  private final List<ReleaseEvent> events = new CopyOnWriteArrayList<>();

  private ReleaseController controller(String id, int parallelism, Consumer<ReleaseEvent> hook) {
    return ReleaseController.builder(cluster, cluster)
        .clock(clock)
        .holder("holder-" + id)
        .parallelism(parallelism)
        .ids(() -> id)
        .listener(
            e -> {
              events.add(e);
              hook.accept(e);
            })
        .build();
  }

  /** Whether {@code e} says {@code release}'s plan is final: its cast writes next. */
  private static boolean planned(ReleaseEvent e, String release) {
    return e instanceof ReleaseEvent.Planned p && p.release().equals(release);
  }

  /** Release b's cast of ConfigMap shared alone, as the cluster logs it (without reads). */
  private static final List<String> B_CASTS_SHARED =
      List.of(
          "lease:acquire:default/b",
          "apply:ConfigMap/default/shared",
          "verify",
          "record:create:default/b#1:deployed",
          "lease:release:default/b");

  /** The cluster's operations without its reads (records read, scopes observed). */
  private List<String> writesAndLeases() {
    return cluster.operations().stream()
        .filter(op -> !op.startsWith("record:read") && !op.startsWith("observe:"))
        .toList();
  }

  /** Release a takes its lease, {@code other} happens, then a goes on with {@code then}. */
  private static List<String> betweenAsLeaseAndItsNextStep(List<String> other, String... then) {
    List<String> out = new java.util.ArrayList<>();
    out.add("lease:acquire:default/a");
    out.addAll(other);
    out.addAll(List.of(then));
    return out;
  }

  private LiveObject live(ResourceRef ref) {
    return cluster.observe(ref.kind(), ref.namespace(), Set.of(ref.name())).get(0);
  }

  @Test
  void twoReleasesRacingForOneNewObjectLeaveItToTheFirstWriterAndFailTheOther() {
    ReleaseController b = controller("id-b", 1, e -> {});
    Payloads bWants = payloads(configMap("shared", "from-b"));
    boolean[] raced = {false};
    ReleaseController a =
        controller(
            "id-a",
            1,
            e -> {
              if (!raced[0] && planned(e, NS + "/a")) {
                raced[0] = true;
                b.cast(spec("b", bWants), bWants);
              }
            });
    Payloads aWants = payloads(configMap("shared", "from-a"), creds("pw"));

    CastFailedException failed =
        catchThrowableOfType(CastFailedException.class, () -> a.cast(spec("a", aWants), aWants));

    String reason =
        "ConfigMap/default/shared was created by release default/b since the plan; not taken";
    assertThat(failed.getCause())
        .hasMessage(reason)
        .cause()
        .isInstanceOf(PreconditionFailedException.class);
    Release aRecord = failed.result().release();
    assertThat(aRecord.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(aRecord.failure()).isEqualTo(reason);
    assertThat(aRecord.owns()).isEmpty();
    assertThat(a.get(NS, "a").orElseThrow()).isEqualTo(aRecord);

    Release bRecord = b.get(NS, "b").orElseThrow();
    assertThat(bRecord.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(bRecord.owns()).extracting(OwnedResource::ref).containsExactly(SHARED);
    assertThat(cluster.stamp(SHARED).orElseThrow().owner())
        .isEqualTo(new ReleaseIdentity(NS, "b", "id-b"));
    assertThat(cluster.object(SHARED).orElseThrow().get("data.value")).isEqualTo("from-b");
    assertThat(cluster.object(CREDS)).isEmpty();

    assertThat(writesAndLeases())
        .containsExactlyElementsOf(
            betweenAsLeaseAndItsNextStep(
                B_CASTS_SHARED,
                "fenced:apply:ConfigMap/default/shared",
                "record:create:default/a#1:failed",
                "lease:release:default/a"));
    assertThat(events)
        .filteredOn(e -> e.release().equals(NS + "/a"))
        .filteredOn(
            e ->
                e instanceof ReleaseEvent.Started
                    || e instanceof ReleaseEvent.Fenced
                    || e instanceof ReleaseEvent.Failed)
        .containsExactly(
            new ReleaseEvent.Started(NS + "/a", SHARED, Action.CREATE),
            new ReleaseEvent.Fenced(NS + "/a", SHARED, Action.CREATE, reason),
            new ReleaseEvent.Failed(NS + "/a", reason));
  }

  @Test
  void aReleaseThatCreatesTheObjectBetweenTheObservationAndTheDryRunIsNamedAndNothingIsWritten() {
    ReleaseController b = controller("id-b", 1, e -> {});
    Payloads bWants = payloads(configMap("shared", "from-b"));
    // a's cluster is this one; b casts as a's first dry run is asked, after a has observed
    InMemoryCluster seenByA = Mockito.spy(cluster);
    boolean[] raced = {false};
    Mockito.doAnswer(
            call -> {
              if (!raced[0]) {
                raced[0] = true;
                b.cast(spec("b", bWants), bWants);
              }
              return call.callRealMethod();
            })
        .when(seenByA)
        .verifyApply(any(), any(), any());
    ReleaseController a =
        ReleaseController.builder(seenByA, cluster)
            .clock(clock)
            .holder("holder-id-a")
            .parallelism(1)
            .ids(() -> "id-a")
            .listener(events::add)
            .build();
    Payloads aWants = payloads(configMap("shared", "from-a"), creds("pw"));
    ReleaseSpec aSpec = spec("a", aWants);
    ReleaseSpec verified = aSpec.withOptions(aSpec.options().withVerifyOnServer(true));

    ReleaseConflictException refused =
        catchThrowableOfType(ReleaseConflictException.class, () -> a.cast(verified, aWants));

    assertThat(refused)
        .hasMessage(
            "release default/a has unresolved conflicts; nothing was written:"
                + " ConfigMap/default/shared\n"
                + "  - ConfigMap/default/shared: was created by release default/b since the plan;"
                + " not taken");
    assertThat(refused.plan().conflicts()).extracting(PlannedChange::ref).containsExactly(SHARED);
    assertThat(a.get(NS, "a")).isEmpty();
    assertThat(cluster.object(SHARED).orElseThrow().get("data.value")).isEqualTo("from-b");
    assertThat(cluster.object(CREDS)).isEmpty();
    // b wrote between a's observation and its first dry run; a sent no further dry run, wrote
    // nothing, recorded nothing
    assertThat(writesAndLeases())
        .containsExactlyElementsOf(
            betweenAsLeaseAndItsNextStep(
                B_CASTS_SHARED,
                "verify-apply:ConfigMap/default/shared",
                "lease:release:default/a"));
  }

  @Test
  void aCreateOfAnObjectSomeoneCreatedUnownedSinceThePlanIsNotTaken() {
    Payloads wants = payloads(configMap("settings", "mine"));
    boolean[] raced = {false};
    ReleaseController a =
        controller(
            "id-a",
            1,
            e -> {
              if (!raced[0] && planned(e, NS + "/a")) {
                raced[0] = true;
                cluster.put(configMap("settings", "theirs"));
              }
            });

    CastFailedException failed =
        catchThrowableOfType(CastFailedException.class, () -> a.cast(spec("a", wants), wants));

    assertThat(failed.result().release().failure())
        .isEqualTo(
            "ConfigMap/default/settings was created by someone else (it is unowned) since the"
                + " plan; not taken");
    assertThat(cluster.object(SETTINGS).orElseThrow().get("data.value")).isEqualTo("theirs");
    assertThat(cluster.stamp(SETTINGS)).isEmpty();
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void anUpdateOnAStaleViewIsFencedAndTheRecordFailsOwningWhatItOwnedBefore() {
    Payloads v1 = payloads(configMap("settings", "v1"));
    ReleaseController setup = controller("id-a", 1, e -> {});
    setup.cast(spec("a", v1), v1);
    LiveObject planned = live(SETTINGS);
    Payloads v2 = payloads(configMap("settings", "v2"));
    boolean[] raced = {false};
    ReleaseController a =
        controller(
            "id-a",
            1,
            e -> {
              if (!raced[0] && planned(e, NS + "/a")) {
                raced[0] = true;
                cluster.edit(SETTINGS, m -> configMap("settings", "edited").render().get(0));
              }
            });
    cluster.clearOperations();

    CastFailedException failed =
        catchThrowableOfType(CastFailedException.class, () -> a.cast(spec("a", v2), v2));

    String reason =
        "ConfigMap/default/settings changed since the plan (uid "
            + planned.uid()
            + ", resourceVersion "
            + planned.resourceVersion()
            + "): it was modified, it carries the stamp of release default/a; not updated";
    assertThat(failed.result().release().failure()).isEqualTo(reason);
    assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.result().release().owns())
        .containsExactlyElementsOf(setup.history(NS, "a").get(1).owns());
    assertThat(cluster.object(SETTINGS).orElseThrow().get("data.value")).isEqualTo("edited");
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.operations()).contains("fenced:apply:ConfigMap/default/settings");
  }

  @Test
  void anUpdateWhoseObjectOnlyMovedItsStatusSinceThePlanIsWrittenAgainOnTheNewVersion() {
    Payloads v1 = payloads(configMap("settings", "v1"));
    ReleaseController setup = controller("id-a", 1, e -> {});
    setup.cast(spec("a", v1), v1);
    Payloads v2 = payloads(configMap("settings", "v2"));
    LiveObject[] moved = {null};
    ReleaseController a =
        controller(
            "id-a",
            1,
            e -> {
              if (moved[0] == null && planned(e, NS + "/a")) {
                // the object's controller writes its status: a new resourceVersion, same content
                cluster.edit(SETTINGS, "kube-controller-manager", "status", m -> m);
                moved[0] = live(SETTINGS);
              }
            });
    cluster.clearOperations();
    events.clear();

    Release cast = a.cast(spec("a", v2), v2).release();

    assertThat(cast.status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.object(SETTINGS).orElseThrow().get("data.value")).isEqualTo("v2");
    assertThat(cluster.operations())
        .containsSubsequence(
            "fenced:apply:ConfigMap/default/settings", "apply:ConfigMap/default/settings");
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.Warning)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: ConfigMap/default/settings moved since the plan with its content and stamp"
                + " unchanged"
                + " (only what the server manages, such as its status); written again on uid "
                + moved[0].uid()
                + ", resourceVersion "
                + moved[0].resourceVersion());
  }

  @Test
  void aPruneOfAnObjectDeletedAndCreatedAgainSinceThePlanDeletesNothing() {
    Payloads v1 = payloads(configMap("settings", "v1"), creds("pw"));
    ReleaseController setup = controller("id-a", 1, e -> {});
    setup.cast(spec("a", v1), v1);
    LiveObject planned = live(SETTINGS);
    Payloads v2 = payloads(creds("pw"));
    boolean[] raced = {false};
    ReleaseController a =
        controller(
            "id-a",
            1,
            e -> {
              if (!raced[0] && planned(e, NS + "/a")) {
                raced[0] = true;
                cluster.deleteOutOfBand(SETTINGS).put(configMap("settings", "someone's"));
              }
            });
    cluster.clearOperations();

    CastFailedException failed =
        catchThrowableOfType(CastFailedException.class, () -> a.cast(spec("a", v2), v2));

    assertThat(failed.result().release().failure())
        .isEqualTo(
            "ConfigMap/default/settings changed since the plan (uid "
                + planned.uid()
                + ", resourceVersion "
                + planned.resourceVersion()
                + "): it was deleted and created again, it is unowned; not deleted");
    assertThat(cluster.object(SETTINGS).orElseThrow().get("data.value")).isEqualTo("someone's");
    assertThat(cluster.writes()).containsExactly("verify");
    assertThat(cluster.operations()).contains("fenced:delete:ConfigMap/default/settings");
  }

  @Test
  void theClusterFailsAWriteOnAStaleViewAsTheApiServerWould() {
    cluster.put(configMap("settings", "x"));
    LiveObject seen = live(SETTINGS);
    Precondition observed = Precondition.of(java.util.Optional.of(seen));
    cluster.edit(SETTINGS, m -> m);

    assertThat(
            catchThrowableOfType(
                PreconditionFailedException.class,
                () -> cluster.apply(configMap("settings", "y").render().get(0), null, observed)))
        .hasMessage(
            "apply ConfigMap default/settings failed (HTTP 409): precondition uid "
                + seen.uid()
                + ", resourceVersion "
                + seen.resourceVersion()
                + " failed: the object has been modified; please apply your changes to the latest"
                + " version and try again");
    assertThat(
            catchThrowableOfType(
                PreconditionFailedException.class,
                () ->
                    cluster.apply(
                        configMap("settings", "y").render().get(0), null, Precondition.absent())))
        .hasMessage(
            "create ConfigMap default/settings failed (HTTP 409): precondition absent failed:"
                + " ConfigMap \"settings\" already exists");
    ReleaseIdentity someone = new ReleaseIdentity(NS, "a", "id-a");
    assertThat(
            catchThrowableOfType(
                PreconditionFailedException.class,
                () -> cluster.delete(SETTINGS, someone, Precondition.observed("u-0", "1"))))
        .hasMessage(
            "delete ConfigMap default/settings failed (HTTP 409): precondition uid u-0,"
                + " resourceVersion 1 failed: uid mismatch: the provided object specified uid u-0,"
                + " found "
                + seen.uid());
    cluster.deleteOutOfBand(SETTINGS);
    assertThat(cluster.delete(SETTINGS, someone, Precondition.observed("u-0", "1"))).isFalse();
    assertThat(cluster.operations())
        .containsSubsequence(
            "fenced:delete:ConfigMap/default/settings", "delete:ConfigMap/default/settings");
  }
}
