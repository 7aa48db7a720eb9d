package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.CastSupersededException;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cast waiting for the lease asks the cast holding it to yield ({@code
 * ReleaseControllerBuilder.askHoldersToYield}, the CLI's {@code --supersede}): the holder stops at
 * its health wait as superseded, records its revision failed and gives the lease up; the asker
 * takes it and casts. The holder's doomed wait is played by an orchestrator that waits until asked
 * to stop.
 */
class LeaseYieldTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final CountDownLatch waiting = new CountDownLatch(1);
  private final CountDownLatch healthy = new CountDownLatch(1);
  private final List<ReleaseEvent> askerEvents = new CopyOnWriteArrayList<>();

  /** Waits for health until the wait is asked to stop, or {@link #healthy} is counted down. */
  private final ForwardingOrchestrator doomed =
      new ForwardingOrchestrator(cluster) {
        @Override
        public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
          waiting.countDown();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (System.nanoTime() < deadline) {
            if (wait.stop().getAsBoolean()) {
              return Readiness.stopped(objects);
            }
            try {
              if (healthy.await(50, TimeUnit.MILLISECONDS)) {
                return super.awaitReady(objects, wait);
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              break;
            }
          }
          return Readiness.timedOut(objects, Duration.ofSeconds(30));
        }
      };

  private static ReleaseInput input(String value) {
    Payloads p =
        Payloads.of(
            yaml(
                "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: "
                    + value
                    + "}}"));
    return new ReleaseInput(ReleaseSpec.of(NS, "app", p), p);
  }

  private CompletableFuture<CastResult> holderCasting() throws InterruptedException {
    ReleaseController holder =
        ReleaseController.builder(doomed, cluster).holder("caster-a").build();
    CompletableFuture<CastResult> cast =
        CompletableFuture.supplyAsync(() -> holder.cast(input("one")));
    assertThat(waiting.await(10, TimeUnit.SECONDS)).as("the holder waits for health").isTrue();
    return cast;
  }

  private ReleaseController asker(boolean ask, Duration wait) {
    return ReleaseController.builder(cluster, cluster)
        .holder("caster-b")
        .waitForLease(wait)
        .askHoldersToYield(ask)
        .listener(askerEvents::add)
        .build();
  }

  @Test
  void theHolderAskedToYieldStopsAtItsWaitRecordsFailedAndTheAskerCasts() throws Exception {
    CompletableFuture<CastResult> first = holderCasting();
    cluster.clearOperations();

    CastResult second = asker(true, Duration.ofSeconds(30)).cast(input("two"));

    assertThat(second.release().revision()).isEqualTo(2);
    assertThat(second.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> {
              assertThat(e.getCause()).isInstanceOf(CastSupersededException.class);
              assertThat(e.result().release().revision()).isEqualTo(1);
              assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
            });
    // the holder recorded its revision and gave the lease up before the asker took it
    assertThat(cluster.operations())
        .filteredOn(
            op ->
                op.startsWith("lease:acquire")
                    || op.startsWith("lease:release")
                    || op.startsWith("record:create"))
        .containsSubsequence(
            "record:create:default/app#1:failed",
            "lease:release:default/app",
            "lease:acquire:default/app",
            "record:create:default/app#2:deployed");
    assertThat(askerEvents)
        .filteredOn(e -> e instanceof ReleaseEvent.AskedToYield)
        .map(ReleaseEvent::describe)
        .containsExactly("asked caster-a, which holds the lease, to yield it to this cast");
    // the request is withdrawn once the asker holds the lease
    assertThat(cluster.yieldRequested(NS, "app", "caster-a")).isEmpty();
    assertThat(cluster.object(ResourceRef.parse("ConfigMap/default/a")).orElseThrow().content())
        .extracting("data")
        .isEqualTo(java.util.Map.of("k", "two"));
  }

  @Test
  void aWaiterThatDoesNotAskWaitsItsTurnAndTheHolderGoesOn() throws Exception {
    CompletableFuture<CastResult> first = holderCasting();

    assertThatThrownBy(() -> asker(false, Duration.ofSeconds(2)).cast(input("two")))
        .isInstanceOf(ReleaseLockedException.class);
    assertThat(askerEvents).noneMatch(e -> e instanceof ReleaseEvent.AskedToYield);
    assertThat(cluster.yieldRequested(NS, "app", "caster-a")).isEmpty();

    healthy.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void aRequestNamesOneHolderAndIsWithdrawnOnlyByItsRequester() {
    cluster.requestYield(NS, "app", "caster-a", "caster-b", Instant.EPOCH);

    assertThat(cluster.yieldRequested(NS, "app", "caster-a")).contains("caster-b");
    assertThat(cluster.yieldRequested(NS, "app", "caster-c")).isEmpty();
    cluster.withdrawYieldRequest(NS, "app", "caster-c");
    assertThat(cluster.yieldRequested(NS, "app", "caster-a")).contains("caster-b");
    cluster.withdrawYieldRequest(NS, "app", "caster-b");
    assertThat(cluster.yieldRequested(NS, "app", "caster-a")).isEmpty();
  }
}
