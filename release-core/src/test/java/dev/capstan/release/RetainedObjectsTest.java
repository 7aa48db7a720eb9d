package dev.capstan.release;

import static dev.capstan.release.Fixtures.DATA;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.memory.SimulatedCrash;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.RetainedUid;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec.ReclaimPolicy;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.StoredRelease;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A retained object (a volume claim kept with its data, a CRD kept) is re-adopted without {@code
 * adopt} only while it is the object the release let go of, told by its uid: another one made at
 * its name since is someone else's.
 */
class RetainedObjectsTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static Payloads app() {
    return payloads(configMap("settings", "x"), volume("data", ReclaimPolicy.RETAIN));
  }

  /** The uid the cluster gave the claim {@code data}. */
  private String uid() {
    return uid(h);
  }

  private static String uid(Fixtures.Harness h) {
    return h.cluster.observe(DATA.kind(), NS, Set.of(DATA.name())).stream()
        .map(LiveObject::uid)
        .filter(Objects::nonNull)
        .findFirst()
        .orElseThrow();
  }

  /**
   * Deletes the claim {@code data} and creates another, unowned, at its name, as a person would.
   */
  private void madeAgainBySomeoneElse() {
    h.cluster.deleteOutOfBand(DATA);
    h.cluster.put(volume("data", ReclaimPolicy.RETAIN));
  }

  @Test
  void anUninstallRecordsTheUidOfTheVolumeItKeeps() {
    h.cast("app", app());
    String uid = uid();

    Release tombstone = h.controller.uninstall(NS, "app", UninstallOptions.defaults()).release();

    assertThat(tombstone.retained()).containsExactly(DATA);
    assertThat(tombstone.retainedUids()).containsExactly(new RetainedUid(DATA, uid));
    assertThat(h.cluster.latestRecord(NS, "app").orElseThrow().release().retainedUids())
        .containsExactly(new RetainedUid(DATA, uid));
  }

  @Test
  void theVolumeKeptIsReadoptedWithoutAdopt() {
    h.cast("app", app());
    String uid = uid();
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    CastResult again = h.cast("app", app());

    assertThat(again.plan().changes(Action.ADOPT))
        .singleElement()
        .satisfies(c -> assertThat(c.reason()).isEqualTo("re-adopt, retained earlier"));
    assertThat(uid()).isEqualTo(uid);
    assertThat(h.cluster.stamp(DATA).orElseThrow().owner().name()).isEqualTo("app");
    assertThat(again.release().retained()).isEmpty();
    assertThat(again.release().retainedUids()).isEmpty();
  }

  @Test
  void anotherVolumeMadeAtTheNameOfTheOneKeptIsAConflictAndNothingIsWritten() {
    h.cast("app", app());
    String kept = uid();
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    madeAgainBySomeoneElse();
    String other = uid();
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.cast("app", app()))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessage(
            "release default/app has unresolved conflicts; nothing was written:"
                + " PersistentVolumeClaim/default/data\n"
                + "  - PersistentVolumeClaim/default/data: retained earlier, but the object there"
                + " now is another one (uid "
                + other
                + ", retained uid "
                + kept
                + "); pass adopt (the CLI's --adopt) to take it");
    assertThat(other).isNotEqualTo(kept);
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.stamp(DATA)).isEmpty();
    Release latest = h.controller.get(NS, "app").orElseThrow();
    assertThat(latest.status()).isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(latest.retainedUids()).containsExactly(new RetainedUid(DATA, kept));
  }

  @Test
  void withAdoptTheOtherVolumeIsTakenSayingItIsAnotherOne() {
    h.cast("app", app());
    String kept = uid();
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    madeAgainBySomeoneElse();
    String other = uid();

    CastResult adopted = h.controller.cast(spec("app", app()).withAdopt(true), app());

    assertThat(adopted.plan().changes(Action.ADOPT))
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.reason())
                    .isEqualTo(
                        "retained earlier, but the object there now is another one (uid "
                            + other
                            + ", retained uid "
                            + kept
                            + "); adopting"));
    assertThat(h.cluster.stamp(DATA).orElseThrow().owner().name()).isEqualTo("app");
    assertThat(adopted.release().retained()).isEmpty();
    assertThat(adopted.release().retainedUids()).isEmpty();
  }

  @Test
  void aRecordWithoutUidsReadoptsWhateverIsAtTheNameAsEarlierCapstansDid() {
    h.cast("app", app());
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());
    // the tombstone as a Capstan from before retained uids wrote it
    StoredRelease stored = h.cluster.latestRecord(NS, "app").orElseThrow();
    Release earlier = stored.release().withRetained(stored.release().retained(), List.of());
    h.cluster.updateRecord(earlier, stored.version());
    madeAgainBySomeoneElse();

    CastResult again = h.cast("app", app());

    assertThat(again.plan().changes(Action.ADOPT))
        .singleElement()
        .satisfies(c -> assertThat(c.reason()).isEqualTo("re-adopt, retained earlier"));
  }

  @Test
  void aVolumeACastLetsGoOfIsKnownByItsUidToo() {
    h.cast("app", app());
    String kept = uid();

    CastResult dropped = h.cast("app", payloads(configMap("settings", "x")));

    assertThat(dropped.release().retainedUids()).containsExactly(new RetainedUid(DATA, kept));
    madeAgainBySomeoneElse();
    h.cluster.clearOperations();
    assertThatThrownBy(() -> h.cast("app", app()))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageContaining(
            "PersistentVolumeClaim/default/data: retained earlier, but the object there now is"
                + " another one");
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void anUninstallKeepsTheUidsOfWhatWasRetainedBefore() {
    h.cast("app", app());
    String kept = uid();
    h.cast("app", payloads(configMap("settings", "x")));

    Release tombstone = h.controller.uninstall(NS, "app", UninstallOptions.defaults()).release();

    assertThat(tombstone.retainedUids()).containsExactly(new RetainedUid(DATA, kept));
  }

  @Test
  void aRollbackDoesNotTakeAnotherVolumeMadeAtTheNameOfTheOneKept() {
    h.cast("app", app());
    String kept = uid();
    h.cast("app", payloads(configMap("settings", "x")));
    madeAgainBySomeoneElse();
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.rollback(NS, "app", 1))
        .isInstanceOf(ReleaseConflictException.class)
        .hasMessageContaining("retained uid " + kept);
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.stamp(DATA)).isEmpty();
  }

  @Test
  void aFailedCastKeepsTheUidsOfWhatWasRetainedBefore() {
    h.cast("app", app());
    String kept = uid();
    h.cast("app", payloads(configMap("settings", "x")));
    h.cluster.faults().failOn(Operation.APPLY, "ConfigMap/default/extra");
    Payloads failing = payloads(configMap("settings", "x"), configMap("extra", "y"));

    for (boolean atomic : List.of(false, true)) {
      assertThatThrownBy(() -> h.controller.cast(spec("app", failing).withAtomic(atomic), failing))
          .isInstanceOfSatisfying(
              CastFailedException.class,
              e ->
                  assertThat(e.result().release().retainedUids())
                      .containsExactly(new RetainedUid(DATA, kept)));
    }
  }

  /**
   * A cast interrupted after the release retained the volume: whoever takes its lease over records
   * it failed (from the lease's intent, or over its {@code PENDING} record), with the uid.
   */
  @ParameterizedTest(name = "lease intents: {0}")
  @ValueSource(booleans = {true, false})
  void anInterruptedCastIsRecordedWithTheUidsOfWhatWasRetained(boolean leaseIntents) {
    Fixtures.Harness h =
        leaseIntents ? new Fixtures.Harness() : Fixtures.Harness.withoutLeaseIntents("me");
    h.cast("app", app());
    String kept = uid(h);
    h.cast("app", payloads(configMap("settings", "x")));
    h.clock.advance(Duration.ofSeconds(1));
    h.cluster.faults().crashAfter(Operation.APPLY, 1);
    Payloads next = payloads(configMap("settings", "y"));
    assertThatThrownBy(() -> h.cast("app", next)).isInstanceOf(SimulatedCrash.class);
    h.cluster.faults().clear();
    h.clock.advance(Duration.ofMinutes(3));

    CastResult r = h.other("caster-b").cast(spec("app", next), next);

    Release interrupted = h.controller.history(NS, "app").get(1);
    assertThat(interrupted.revision()).isEqualTo(3);
    assertThat(interrupted.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(interrupted.retainedUids()).containsExactly(new RetainedUid(DATA, kept));
    assertThat(r.release().retainedUids()).containsExactly(new RetainedUid(DATA, kept));
  }
}
