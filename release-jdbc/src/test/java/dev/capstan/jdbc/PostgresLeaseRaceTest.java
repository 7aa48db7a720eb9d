package dev.capstan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.port.LeaseGrant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Holders racing for one lease on PostgreSQL, each on its own connection: exactly one wins, the
 * others are told who did, whether the row is new (racing INSERTs) or expired (racing takeovers).
 */
@ExtendWith(PostgresExtension.class)
class PostgresLeaseRaceTest {
  private static final int HOLDERS = 8;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void exactlyOneOfRacingHoldersGetsANewLeaseAndThenAnExpiredOne(PostgresServer postgres)
      throws Exception {
    JdbcStore store = JdbcStore.create(postgres.dataSource());
    store.migrate();

    List<Object> first = race(store, "race-new", T0);
    List<Object> second = race(store, "race-new", T0.plus(TTL));

    for (List<Object> outcomes : List.of(first, second)) {
      List<LeaseGrant> grants =
          outcomes.stream()
              .filter(LeaseGrant.class::isInstance)
              .map(LeaseGrant.class::cast)
              .toList();
      assertThat(grants).hasSize(1);
      String winner = grants.get(0).lease().holder();
      assertThat(outcomes)
          .filteredOn(ReleaseLockedException.class::isInstance)
          .hasSize(HOLDERS - 1)
          .allSatisfy(e -> assertThat(((ReleaseLockedException) e).holder()).isEqualTo(winner));
    }
    LeaseGrant takeover =
        second.stream()
            .filter(LeaseGrant.class::isInstance)
            .map(LeaseGrant.class::cast)
            .findFirst()
            .orElseThrow();
    LeaseGrant original =
        first.stream()
            .filter(LeaseGrant.class::isInstance)
            .map(LeaseGrant.class::cast)
            .findFirst()
            .orElseThrow();
    // whoever wins, the expired lease is taken over, its own holder included: what that holder
    // left unfinished is recorded, as after any takeover
    assertThat(takeover.takenOver()).isEqualTo(original.lease());
  }

  private static List<Object> race(JdbcStore store, String name, Instant now) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(HOLDERS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Object>> futures = new ArrayList<>();
      for (int i = 0; i < HOLDERS; i++) {
        String holder = "holder-" + i;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    return store.acquireLease("race", name, holder, now, TTL);
                  } catch (ReleaseLockedException e) {
                    return e;
                  }
                }));
      }
      start.countDown();
      List<Object> outcomes = new ArrayList<>();
      for (Future<Object> f : futures) {
        outcomes.add(f.get(60, TimeUnit.SECONDS));
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }
}
