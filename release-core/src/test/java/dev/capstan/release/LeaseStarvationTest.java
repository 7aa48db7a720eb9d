package dev.capstan.release;

import static dev.capstan.release.Fixtures.T0;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.release.engine.LeaseKeeper;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Lease;
import dev.capstan.release.port.Store;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A holder whose renewals ran late (the process starved of CPU, a renewer thread that did not get
 * to run, a renewal stuck in flight) keeps a lease nobody else took: before its next write it
 * renews the lease, conditioned on its own last write of it, and goes on. Only a real takeover (a
 * write of the lease by anyone else since) stops it. The renewer never runs on its own here (its
 * period is an hour of real time) unless a test says so; the clock is a manual one.
 */
class LeaseStarvationTest {
  private static final String NS = "shop";
  private static final Duration TTL = Duration.ofSeconds(15);

  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace(NS);
  private final ManualClock clock = ManualClock.at(T0);
  private final List<ReleaseEvent> events = new CopyOnWriteArrayList<>();

  private LeaseKeeper.Terms terms(Store store, String holder, Duration renewEvery) {
    return new LeaseKeeper.Terms(
        store,
        holder,
        clock,
        TTL,
        renewEvery,
        Duration.ZERO,
        LeaseKeeper.POLL,
        Sleeper.system(),
        false);
  }

  private LeaseKeeper acquire(String holder) {
    return LeaseKeeper.acquire(terms(cluster, holder, Duration.ofHours(1)), NS, "app", events::add);
  }

  private List<String> leaseOperations() {
    return cluster.operations().stream().filter(o -> o.startsWith("lease:")).toList();
  }

  @Test
  void aHolderWhoseRenewalsRanLateKeepsTheLeaseNobodyTookAndRenewsItBeforeGoingOn() {
    LeaseKeeper a = acquire("caster-a");
    clock.advance(Duration.ofSeconds(40)); // 25 s past the expiry, nobody wanted the lease

    a.checkHeld();

    assertThat(cluster.lease(NS, "app"))
        .contains(new Lease("caster-a", T0, T0.plusSeconds(40).plus(TTL)));
    assertThat(leaseOperations()).containsExactly("lease:acquire:shop/app", "lease:renew:shop/app");
    assertThat(events)
        .filteredOn(e -> e instanceof ReleaseEvent.Warning)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "warning: renewed it late: the operation lease expired at 2026-01-01T00:00:15Z by"
                + " this process's clock (last renewed at 2026-01-01T00:00:00Z), and nobody had"
                + " taken it over");

    // renewed: the next checks within the new expiry cost nothing
    clock.advance(Duration.ofSeconds(14));
    a.checkHeld();
    assertThat(leaseOperations()).hasSize(2);
    a.close();
    assertThat(cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void aTakeoverWhileTheHolderStalledStopsItBeforeItsNextWrite() {
    LeaseKeeper a = acquire("caster-a");
    clock.advance(Duration.ofSeconds(16));
    LeaseKeeper b = acquire("caster-b");
    assertThat(b.grant().takenOver()).isNotNull();

    assertThatThrownBy(a::checkHeld)
        .isInstanceOf(ReleaseException.class)
        .hasMessage(
            "lost the operation lease on shop/app: caster-b took it over (this process last"
                + " renewed it at 2026-01-01T00:00:00Z, lasting until 2026-01-01T00:00:15Z by its"
                + " clock); stopped before the next write");
    // and it stays lost: no second renewal, and the lease stays caster-b's
    assertThatThrownBy(a::checkHeld).hasMessageStartingWith("lost the operation lease on shop/app");
    assertThat(leaseOperations())
        .containsExactly(
            "lease:acquire:shop/app", "lease:acquire:shop/app", "lease:renew:shop/app");
    assertThat(cluster.lease(NS, "app").orElseThrow().holder()).isEqualTo("caster-b");
    b.close();
  }

  @Test
  void aTakeoverThatEndedMeanwhileStillStopsTheStalledHolderAndLeavesTheReleaseFree() {
    LeaseKeeper a = acquire("caster-a");
    clock.advance(Duration.ofSeconds(16));
    acquire("caster-b").close(); // took it over, did its work, gave it up

    assertThatThrownBy(a::checkHeld)
        .hasMessage(
            "lost the operation lease on shop/app: it was taken over and given up since (this"
                + " process last renewed it at 2026-01-01T00:00:00Z, lasting until"
                + " 2026-01-01T00:00:15Z by its clock); stopped before the next write");
    assertThat(cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void anotherProcessTakingTheLeaseUnderTheSameHolderNameIsATakeoverToo() {
    // the renewal is conditioned on this keeper's own last write, not on the holder's name
    LeaseKeeper a = acquire("caster-a");
    clock.advance(Duration.ofSeconds(16));
    LeaseKeeper twin = acquire("caster-a");

    assertThatThrownBy(a::checkHeld)
        .hasMessage(
            "lost the operation lease on shop/app: another process took it under the same holder"
                + " name, caster-a (this process last renewed it at 2026-01-01T00:00:00Z, lasting"
                + " until 2026-01-01T00:00:15Z by its clock); stopped before the next write");
    twin.checkHeld();
    twin.close();
  }

  @Test
  void aRenewalStuckInFlightIsAwaitedThenTheLeaseIsRenewedOnceMoreBeforeGoingOn() throws Exception {
    CountDownLatch sent = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    List<String> calls = Collections.synchronizedList(new ArrayList<>());
    Store slow =
        new ForwardingStore(cluster) {
          @Override
          public String renewLease(
              String namespace,
              String name,
              String holder,
              String version,
              Instant now,
              Duration ttl) {
            calls.add(
                Thread.currentThread().getName().startsWith("capstan-lease") ? "renewer" : "cast");
            if (sent.getCount() == 1) {
              sent.countDown();
              try {
                answer.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return super.renewLease(namespace, name, holder, version, now, ttl);
          }
        };
    LeaseKeeper a =
        LeaseKeeper.acquire(terms(slow, "caster-a", Duration.ofMillis(20)), NS, "app", events::add);
    assertThat(sent.await(10, SECONDS)).isTrue(); // the renewer's first renewal, sent at T0
    clock.advance(Duration.ofSeconds(40));

    List<RuntimeException> thrown = new CopyOnWriteArrayList<>();
    Thread cast =
        new Thread(
            () -> {
              try {
                a.checkHeld();
              } catch (RuntimeException e) {
                thrown.add(e);
              }
            },
            "cast");
    cast.start();
    cast.join(300);
    assertThat(cast.isAlive()).isTrue(); // waits for the renewal in flight; sends no second one
    assertThat(calls).containsExactly("renewer");

    answer.countDown();
    cast.join(SECONDS.toMillis(10));

    assertThat(cast.isAlive()).isFalse();
    assertThat(thrown).isEmpty();
    // the renewal in flight extended the lease from T0 only, to a past instant: the lease was
    // renewed once more, from T0 + 40 s (by the cast, or by the renewer's next turn before it)
    assertThat(calls.size()).isGreaterThanOrEqualTo(2);
    assertThat(cluster.lease(NS, "app").orElseThrow().expiresAt())
        .isEqualTo(T0.plusSeconds(40).plus(TTL));
    a.close();
  }
}
