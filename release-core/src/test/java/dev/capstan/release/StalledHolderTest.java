package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.ManualClock;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A caster stalled past its lease (a long GC pause, SIGSTOP) wakes up after another caster took the
 * release over: it writes nothing more, and its attempt stays recorded {@code FAILED}.
 */
class StalledHolderTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ManualClock clock = ManualClock.at(T0);

  /** A config map (first group) and a secret (second group): two write batches. */
  private final Payloads v1 = payloads(configMap("a", "1"), creds("p1"));

  @Test
  void aStalledHolderWakingAfterTakeoverStopsBeforeItsNextWriteAndItsAttemptIsFailed()
      throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch wake = new CountDownLatch(1);
    List<ReleaseEvent> eventsA = new CopyOnWriteArrayList<>();
    // Renewals are every 30 s of real time: none runs during this test.
    ReleaseController a =
        ReleaseController.builder(cluster, cluster)
            .clock(clock)
            .holder("caster-a")
            .parallelism(1)
            .leaseDuration(Duration.ofSeconds(60))
            .leaseRenewal(Duration.ofSeconds(30))
            .ids(() -> "id-a")
            .listener(
                e -> {
                  eventsA.add(e);
                  if (e instanceof ReleaseEvent.Done && paused.getCount() == 1) {
                    paused.countDown();
                    await(wake);
                  }
                })
            .build();
    CompletableFuture<Throwable> outcomeA = new CompletableFuture<>();
    Thread ta =
        new Thread(
            () -> {
              try {
                a.cast(spec("app", v1), v1);
                outcomeA.complete(new AssertionError("caster-a finished"));
              } catch (RuntimeException e) {
                outcomeA.complete(e);
              }
            });
    ta.start();
    assertThat(paused.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(cluster.writes()).containsExactly("apply:ConfigMap/default/a");

    clock.advance(Duration.ofSeconds(61));
    ReleaseController b =
        ReleaseController.builder(cluster, cluster)
            .clock(clock)
            .holder("caster-b")
            .parallelism(1)
            .build();
    CastResult rb = b.cast(spec("app", v1), v1);
    List<String> writesAfterTakeover = cluster.writes();
    wake.countDown();
    ta.join(10_000);

    assertThat(rb.release().revision()).isEqualTo(2);
    assertThat(rb.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.writes()).isEqualTo(writesAfterTakeover);
    assertThat(outcomeA.get())
        .isInstanceOf(CastFailedException.class)
        .cause()
        .hasMessage(
            "the operation lease on default/app expired at 2026-01-01T00:01:00Z (last renewed at"
                + " 2026-01-01T00:00:00Z); stopped before the next write");
    Release attemptA = b.history(NS, "app").get(1);
    assertThat(attemptA.revision()).isEqualTo(1);
    assertThat(attemptA.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(attemptA.failure())
        .isEqualTo(
            "interrupted: the lease of caster-a expired at 2026-01-01T00:01:00Z before the cast"
                + " finished");
    assertThat(((CastFailedException) outcomeA.get()).result().release()).isEqualTo(attemptA);
    assertThat(eventsA)
        .filteredOn(e -> e instanceof ReleaseEvent.Warning)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: revision 1 was already recorded failed by the lease's new holder:"
                + " interrupted: the lease of caster-a expired at 2026-01-01T00:01:00Z before the"
                + " cast finished");
    assertThat(cluster.lease(NS, "app")).isEmpty();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
