package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.Backoff;
import dev.capstan.common.ManualClock;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Lease terms: the "locked" message, queueing behind a live holder, and the default terms. */
class LeaseWaitTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ManualClock clock = ManualClock.at(T0);
  private final List<ReleaseEvent> events = new CopyOnWriteArrayList<>();
  private final Payloads p = payloads(configMap("a", "1"));

  private ReleaseController controller(Duration wait) {
    return ReleaseController.builder(cluster, cluster)
        .clock(clock)
        .holder("caster-a")
        .waitForLease(wait)
        .sleeper(clock::sleep)
        .leasePoll(
            new Backoff(
                Duration.ofMillis(200),
                Duration.ofSeconds(2),
                Integer.MAX_VALUE,
                Duration.ofDays(1),
                new Random(42)))
        .listener((ReleaseListener) events::add)
        .build();
  }

  @Test
  void lockedMessageNamesTheHolderItsLastRenewalAndItsExpiry() {
    cluster.putLease(NS, "app", new Lease("host-b/pid 4242/1a2b3c4d", T0, T0.plusSeconds(15)));
    clock.advance(Duration.ofSeconds(3));

    assertThatThrownBy(() -> controller(Duration.ZERO).cast(spec("app", p), p))
        .isInstanceOf(ReleaseLockedException.class)
        .hasMessage(
            "release default/app is locked by host-b/pid 4242/1a2b3c4d (renewed 3 s ago, expires"
                + " in 12 s); pass --wait (waitForLease) to queue behind it");
    assertThat(cluster.writes()).isEmpty();
  }

  @Test
  void aLeaseFoundExpiredSaysItsHolderMayBeDead() {
    ReleaseLockedException e =
        new ReleaseLockedException(
            "shop/web", "host-a/pid 1", T0, T0.plusSeconds(15), T0.plusSeconds(20));

    assertThat(e)
        .hasMessage(
            "release shop/web is locked by host-a/pid 1 (renewed 20 s ago, expired 5 s ago: the"
                + " holder may be dead; the next cast takes the lease over)");
  }

  @Test
  void waitingQueuesBehindALiveHolderUntilItGivesTheLeaseUp() {
    cluster.putLease(NS, "app", new Lease("caster-b", T0, T0.plusSeconds(15)));
    // caster-b finishes while caster-a sleeps its third pause
    clock.onSleep(
        () -> {
          if (clock.sleeps().size() == 3) {
            cluster.releaseLease(NS, "app", "caster-b", false);
          }
        });

    CastResult r = controller(Duration.ofSeconds(30)).cast(spec("app", p), p);

    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    // 200, 400, 800 ms steps with equal jitter from seed 42
    assertThat(clock.sleeps())
        .containsExactly(Duration.ofMillis(102), Duration.ofMillis(306), Duration.ofMillis(660));
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.WaitingForLease)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "waiting up to 30s for the lease held by caster-b (expires 2026-01-01T00:00:15Z"
                + " unless renewed)");
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.LeaseAcquired)
        .extracting(ReleaseEvent::describe)
        .containsExactly("lease acquired by caster-a");
  }

  @Test
  void waitingTakesOverALeaseThatLapsesMeanwhile() {
    cluster.putLease(NS, "app", new Lease("dead", T0, T0.plusSeconds(5)));

    CastResult r = controller(Duration.ofSeconds(30)).cast(spec("app", p), p);

    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(clock.instant()).isAfterOrEqualTo(T0.plusSeconds(5)).isBefore(T0.plusSeconds(8));
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.LeaseAcquired)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "lease acquired by caster-a, taking over from dead (expired 2026-01-01T00:00:05Z)");
  }

  @Test
  void waitingGivesUpAfterTheWaitWithTheLockedErrorAndWritesNothing() {
    cluster.putLease(NS, "app", new Lease("caster-b", T0, T0.plusSeconds(600)));

    assertThatThrownBy(() -> controller(Duration.ofSeconds(10)).cast(spec("app", p), p))
        .isInstanceOf(ReleaseLockedException.class)
        .hasMessage(
            "release default/app is locked by caster-b (renewed 10 s ago, expires in 590 s); pass"
                + " --wait (waitForLease) to queue behind it");
    assertThat(clock.instant()).isEqualTo(T0.plusSeconds(10));
    assertThat(cluster.writes()).isEmpty();
    assertThat(cluster.recordCount(NS, "app")).isZero();
  }

  @Test
  void theDefaultLeaseLastsFifteenSeconds() {
    List<Lease> seen = new CopyOnWriteArrayList<>();
    ReleaseController c =
        ReleaseController.builder(cluster, cluster)
            .clock(clock)
            .holder("caster-a")
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.RecordSaved) {
                    cluster.lease(NS, "app").ifPresent(seen::add);
                  }
                })
            .build();

    c.cast(spec("app", p), p);

    assertThat(ReleaseController.DEFAULT_LEASE_DURATION).isEqualTo(Duration.ofSeconds(15));
    assertThat(seen).first().isEqualTo(new Lease("caster-a", T0, T0.plusSeconds(15)));
  }

  @Test
  void aRenewalPeriodAboveHalfTheLeaseIsRefused() {
    assertThatThrownBy(
            () ->
                ReleaseController.builder(cluster, cluster)
                    .leaseDuration(Duration.ofSeconds(10))
                    .leaseRenewal(Duration.ofSeconds(6))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "leaseRenewal must be at most half the lease duration (10s), so one missed renewal"
                + " does not lose the lease: 6s");
  }
}
