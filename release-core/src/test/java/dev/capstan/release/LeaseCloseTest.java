package dev.capstan.release;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.Sleeper;
import dev.capstan.release.engine.LeaseKeeper;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.port.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Giving a lease up while a renewal is in flight: the release waits for the renewal, so it is one
 * request on the lease as renewed, not a refused delete followed by a read and a second delete.
 */
class LeaseCloseTest {
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch renewing = new CountDownLatch(1);
  private final CountDownLatch finishRenewal = new CountDownLatch(1);

  /** The cluster's store; the first renewal stops halfway until {@code finishRenewal}. */
  private final Store store =
      new ForwardingStore(cluster) {
        @Override
        public String renewLease(
            String namespace,
            String name,
            String holder,
            String version,
            Instant now,
            Duration ttl) {
          if (renewing.getCount() == 0) {
            return version; // only the first renewal is watched; the others change nothing
          }
          calls.add("renew sent");
          renewing.countDown();
          try {
            finishRenewal.await();
          } catch (InterruptedException e) {
            calls.add("renewal interrupted");
            Thread.currentThread().interrupt();
            return version;
          }
          String renewed = cluster.renewLease(namespace, name, holder, version, now, ttl);
          calls.add("renew answered");
          return renewed;
        }

        @Override
        public void releaseLease(String namespace, String name, String holder, boolean forget) {
          calls.add("release");
          cluster.releaseLease(namespace, name, holder, forget);
        }
      };

  @Test
  void closeLetsARenewalInFlightFinishThenGivesTheLeaseUp() throws Exception {
    LeaseKeeper keeper =
        LeaseKeeper.acquire(
            new LeaseKeeper.Terms(
                store,
                "caster-a",
                Clock.systemUTC(),
                Duration.ofSeconds(30),
                Duration.ofMillis(5),
                Duration.ZERO,
                LeaseKeeper.POLL,
                Sleeper.system(),
                false),
            "default",
            "app",
            e -> {});
    assertThat(renewing.await(10, SECONDS)).isTrue();

    Thread closing = new Thread(keeper::close, "closing");
    closing.start();
    closing.join(300);

    // still waiting for the renewal: nothing given up, nothing interrupted
    assertThat(closing.isAlive()).isTrue();
    assertThat(calls).containsExactly("renew sent");
    assertThat(cluster.lease("default", "app")).isPresent();

    finishRenewal.countDown();
    closing.join(SECONDS.toMillis(10));

    assertThat(closing.isAlive()).isFalse();
    assertThat(calls).containsExactly("renew sent", "renew answered", "release");
    assertThat(cluster.lease("default", "app")).isEmpty();
  }
}
