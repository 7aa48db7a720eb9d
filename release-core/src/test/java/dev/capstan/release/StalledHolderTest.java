package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.T0;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
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
    ReleaseController a = stallingAfterFirstWrite(paused, wake, eventsA);
    CompletableFuture<Object> outcomeA = castInBackground(a, spec("app", v1));
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
    Object outcome = outcomeA.get(10, TimeUnit.SECONDS);

    assertThat(rb.release().revision()).isEqualTo(2);
    assertThat(rb.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.writes()).isEqualTo(writesAfterTakeover);
    assertThat(outcome)
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .isInstanceOf(CastFailedException.class)
        .cause()
        .hasMessage(
            "lost the operation lease on default/app: it was taken over and given up since (this"
                + " process last renewed it at 2026-01-01T00:00:00Z, lasting until"
                + " 2026-01-01T00:01:00Z by its clock); stopped before the next write");
    Release attemptA = b.history(NS, "app").get(1);
    assertThat(attemptA.revision()).isEqualTo(1);
    assertThat(attemptA.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(attemptA.failure())
        .isEqualTo(
            "interrupted: the lease of caster-a expired at 2026-01-01T00:01:00Z before the cast"
                + " finished");
    assertThat(((CastFailedException) outcome).result().release()).isEqualTo(attemptA);
    assertThat(eventsA)
        .filteredOn(e -> e instanceof ReleaseEvent.Warning)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: revision 1 was already recorded failed by the lease's new holder:"
                + " interrupted: the lease of caster-a expired at 2026-01-01T00:01:00Z before the"
                + " cast finished");
    assertThat(cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void aHolderStalledPastItsLeaseWhileNobodyElseWantedTheReleaseRenewsItAndFinishes()
      throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch wake = new CountDownLatch(1);
    List<ReleaseEvent> eventsA = new CopyOnWriteArrayList<>();
    ReleaseController a = stallingAfterFirstWrite(paused, wake, eventsA);
    CompletableFuture<Object> outcomeA = castInBackground(a, spec("app", v1));
    assertThat(paused.await(10, TimeUnit.SECONDS)).isTrue();

    clock.advance(Duration.ofSeconds(61)); // past the 60 s lease; the renewer never ran
    wake.countDown();

    assertThat(outcomeA.get(10, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            CastResult.class,
            r -> assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED));
    // the lease was renewed (conditioned on caster-a's own last write) before the next write
    assertThat(cluster.operations())
        .filteredOn(o -> o.startsWith("lease:") || o.startsWith("apply:"))
        .containsExactly(
            "lease:acquire:default/app",
            "apply:ConfigMap/default/a",
            "lease:renew:default/app",
            "apply:Secret/default/creds",
            "lease:release:default/app");
    assertThat(eventsA)
        .filteredOn(e -> e instanceof ReleaseEvent.Warning)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: renewed it late: the operation lease expired at 2026-01-01T00:01:00Z by"
                + " this process's clock (last renewed at 2026-01-01T00:00:00Z), and nobody had"
                + " taken it over");
  }

  @Test
  void anAtomicHolderStalledPastATakeoverRevertsNothingOfTheNewHoldersWork() throws Exception {
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch wake = new CountDownLatch(1);
    ReleaseController a = stallingAfterFirstWrite(paused, wake, new CopyOnWriteArrayList<>());
    CompletableFuture<Object> outcomeA =
        castInBackground(
            a, spec("app", v1).withOptions(ReleaseOptions.defaults().withAtomic(true)));
    assertThat(paused.await(10, TimeUnit.SECONDS)).isTrue();

    clock.advance(Duration.ofSeconds(61));
    ReleaseController b =
        ReleaseController.builder(cluster, cluster).clock(clock).holder("caster-b").build();
    b.cast(spec("app", v1), v1);
    List<String> writesAfterTakeover = cluster.writes();
    wake.countDown();

    Object outcome = outcomeA.get(10, TimeUnit.SECONDS);
    assertThat(outcome).isInstanceOf(CastFailedException.class);
    CastResult failed = ((CastFailedException) outcome).result();
    // caster-a created ConfigMap a before it stalled; caster-b's revision owns it now: the atomic
    // revert of caster-a deletes nothing and writes nothing
    assertThat(cluster.writes()).isEqualTo(writesAfterTakeover);
    assertThat(cluster.object(configMap("a", "1").ref())).isPresent();
    assertThat(failed.revert()).isEqualTo(CastResult.Revert.INCOMPLETE);
    assertThat(((CastFailedException) outcome).getCause())
        .hasMessageStartingWith(
            "lost the operation lease on default/app: it was taken over and given up since");
  }

  /**
   * Caster A (a 60 s lease renewed every 30 s of real time: never during a test), stalling after
   * its first object write until {@code wake}.
   */
  private ReleaseController stallingAfterFirstWrite(
      CountDownLatch paused, CountDownLatch wake, List<ReleaseEvent> events) {
    return ReleaseController.builder(cluster, cluster)
        .clock(clock)
        .holder("caster-a")
        .parallelism(1)
        .leaseDuration(Duration.ofSeconds(60))
        .leaseRenewal(Duration.ofSeconds(30))
        .ids(() -> "id-a")
        .listener(
            e -> {
              events.add(e);
              if (e instanceof ReleaseEvent.Done && paused.getCount() == 1) {
                paused.countDown();
                await(wake);
              }
            })
        .build();
  }

  private CompletableFuture<Object> castInBackground(ReleaseController a, ReleaseSpec spec) {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    new Thread(
            () -> {
              try {
                outcome.complete(a.cast(spec, v1));
              } catch (RuntimeException e) {
                outcome.complete(e);
              }
            })
        .start();
    return outcome;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
