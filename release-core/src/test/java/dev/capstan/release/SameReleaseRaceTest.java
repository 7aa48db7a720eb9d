package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Another cast of the same release records and writes between a plan's read of the record and its
 * read of the live objects: the plan must not call them objects of an earlier install whose record
 * is gone (and ask for adopt); it takes a second look at the record, as a cast does.
 */
class SameReleaseRaceTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ManualClock clock = ManualClock.at(T0);
  private final Payloads v1 = payloads(configMap("a", "1"), configMap("b", "1"));

  /** A store whose first record read answers as before {@code race} ran, then runs it. */
  private Store racing(Runnable race) {
    return new ForwardingStore(cluster) {
      private boolean raced;

      @Override
      public Optional<StoredRelease> latestRecord(String namespace, String name) {
        Optional<StoredRelease> r = cluster.latestRecord(namespace, name);
        if (!raced) {
          raced = true;
          race.run();
        }
        return r;
      }
    };
  }

  private ReleaseController other() {
    return ReleaseController.builder(cluster, cluster).clock(clock).holder("caster-b").build();
  }

  @Test
  void aPlanRacingACastOfTheSameReleaseSeesItsObjectsAsTheReleases() {
    ReleaseController a =
        ReleaseController.builder(cluster, racing(() -> other().cast(spec("app", v1), v1)))
            .clock(clock)
            .holder("caster-a")
            .build();

    Plan plan = a.plan(spec("app", v1));

    assertThat(plan.applyable()).isTrue();
    assertThat(plan.revision()).isEqualTo(2);
    assertThat(plan.changes())
        .extracting(c -> c.action() + " " + c.ref().key())
        .containsExactly(
            "REFERENCE Namespace//default",
            "UNCHANGED ConfigMap/default/a",
            "UNCHANGED ConfigMap/default/b");
  }

  @Test
  void aCastRacingACastInProgressOfTheSameReleaseIsToldItIsLocked() {
    // caster-b took the lease and wrote revision 1's objects; it is still at work
    Runnable inProgress =
        () -> {
          other().cast(spec("app", v1), v1);
          cluster.putLease(NS, "app", new Lease("caster-b", T0, T0.plusSeconds(15)));
        };
    ReleaseController a =
        ReleaseController.builder(cluster, racing(inProgress))
            .clock(clock)
            .holder("caster-a")
            .build();
    Plan plan = a.plan(spec("app", v1));
    assertThat(plan.applyable()).isTrue();

    assertThatThrownBy(() -> a.cast(spec("app", v1), v1))
        .isInstanceOf(ReleaseLockedException.class)
        .hasMessage(
            "release default/app is locked by caster-b (renewed 0 s ago, expires in 15 s); pass"
                + " --wait (waitForLease) to queue behind it");
  }
}
