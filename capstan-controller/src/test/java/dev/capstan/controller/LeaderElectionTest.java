package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.common.logging.LogCapture;
import dev.capstan.controller.LeaderElection.Listener;
import dev.capstan.controller.LeaderElection.Timing;
import dev.capstan.k8s.testing.Await;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.event.Level;

/**
 * The election's rounds on an in-memory Lease and a manual clock, with client-go's default timing
 * (a 15 s lease, renewed every 5 s, tries every 2 s): each test runs rounds at exact times and
 * checks the requests made, the listener's calls (in one log, in order), and the Lease written.
 */
class LeaderElectionTest {
  private static final String NS = "ns";
  private static final String LEASE = "capstan-controller";
  private static final Duration RENEW = Duration.ofSeconds(5);
  private static final Duration RETRY = Duration.ofSeconds(2);

  private final ManualClock clock = ManualClock.create();
  private final Instant t0 = clock.instant();
  private final List<String> log = new CopyOnWriteArrayList<>();
  private final InMemoryLeaseApi leases = new InMemoryLeaseApi(log);
  private final LeaderElection a = elector("a");
  private final Listener la = listener("a");

  @Test
  void aCandidateCreatesAnAbsentLeaseAndLeads() {
    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log).containsExactly("GET", "CREATE a", "startedLeading a");
    assertThat(a.isLeader()).isTrue();
    assertThat(record()).isEqualTo(new ElectionRecord("a", t0, t0, 15, 0));
  }

  @Test
  void aLeaderRenewsWithOneReplaceOnItsOwnLastWriteEveryRenewPeriod() {
    a.round(la);
    log.clear();

    clock.advance(RENEW);
    assertThat(a.round(la)).isEqualTo(RENEW);
    clock.advance(RENEW);
    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log).containsExactly("REPLACE a", "REPLACE a");
    assertThat(record()).isEqualTo(new ElectionRecord("a", t0, t0.plusSeconds(10), 15, 0));
  }

  @Test
  void aLeaseHeldByAnotherIsTakenOverOnlyOnceItsRenewalStoppedCounting() {
    leases.put(NS, lease(new ElectionRecord("b", t0.minusSeconds(60), t0, 15, 4)));

    clock.advance(Duration.ofSeconds(15));
    assertThat(a.round(la)).isEqualTo(RETRY);
    assertThat(a.isLeader()).isFalse();
    clock.advance(Duration.ofNanos(1_000));
    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log).containsExactly("GET", "GET", "REPLACE a", "startedLeading a");
    Instant now = t0.plusSeconds(15).plusNanos(1_000);
    assertThat(record()).isEqualTo(new ElectionRecord("a", now, now, 15, 5));
  }

  @Test
  void aGivenUpLeaseIsTakenAtOnceCountingATransition() {
    leases.put(NS, lease(new ElectionRecord(null, t0, t0, 1, 2)));

    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log).containsExactly("GET", "REPLACE a", "startedLeading a");
    assertThat(record()).isEqualTo(new ElectionRecord("a", t0, t0, 15, 3));
  }

  @Test
  void aLeaseStillNamingThisCandidateIsTakenBackWithoutATransition() {
    Instant acquired = t0.minusSeconds(3_600);
    leases.put(NS, lease(new ElectionRecord("a", acquired, t0.minusSeconds(3), 15, 2)));

    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log).containsExactly("GET", "REPLACE a", "startedLeading a");
    assertThat(record()).isEqualTo(new ElectionRecord("a", acquired, t0, 15, 2));
  }

  @Test
  void ofTwoCandidatesCreatingTheLeaseOnlyTheFirstWriteWins() {
    LeaderElection b = elector("b");
    Listener lb = listener("b");
    leases.beforeNextWrite(() -> b.round(lb));

    assertThat(a.round(la)).isEqualTo(RETRY);

    assertThat(log)
        .containsExactly("GET", "GET", "CREATE b", "startedLeading b", "CREATE a (HTTP 409)");
    assertThat(a.isLeader()).isFalse();
    assertThat(b.isLeader()).isTrue();
    assertThat(record()).isEqualTo(new ElectionRecord("b", t0, t0, 15, 0));
  }

  @Test
  void ofTwoCandidatesTakingAnExpiredLeaseOverOnlyTheFirstWriteWins() {
    leases.put(NS, lease(new ElectionRecord("c", t0.minusSeconds(60), t0.minusSeconds(16), 15, 1)));
    LeaderElection b = elector("b");
    Listener lb = listener("b");
    leases.beforeNextWrite(() -> b.round(lb));

    assertThat(a.round(la)).isEqualTo(RETRY);

    assertThat(log)
        .containsExactly("GET", "GET", "REPLACE b", "startedLeading b", "REPLACE a (HTTP 409)");
    assertThat(a.isLeader()).isFalse();
    assertThat(record()).isEqualTo(new ElectionRecord("b", t0, t0, 15, 2));
  }

  @Test
  void aRenewalRefusedBecauseAnotherHolderWroteTheLeaseStopsLeading() {
    a.round(la);
    leases.put(NS, lease(new ElectionRecord("b", t0, t0, 15, 1)));
    log.clear();

    clock.advance(RENEW);
    assertThat(a.round(la)).isEqualTo(RETRY);
    clock.advance(RETRY);
    assertThat(a.round(la)).isEqualTo(RETRY);

    assertThat(log).containsExactly("REPLACE a (HTTP 409)", "GET", "stoppedLeading a", "GET");
    assertThat(a.isLeader()).isFalse();
    assertThat(record().holder()).isEqualTo("b");
  }

  @Test
  void aRenewalRefusedForItsOwnUnansweredWriteRenewsOnTheVersionItReads() {
    a.round(la);
    // its renewal landed but the answer was lost: the Lease still names it, at a newer version
    leases.put(NS, lease(new ElectionRecord("a", t0, t0.plusSeconds(4), 15, 0)));
    log.clear();

    clock.advance(RENEW);
    assertThat(a.round(la)).isEqualTo(RENEW);
    clock.advance(RENEW);
    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log).containsExactly("REPLACE a (HTTP 409)", "GET", "REPLACE a", "REPLACE a");
    assertThat(a.isLeader()).isTrue();
    assertThat(record()).isEqualTo(new ElectionRecord("a", t0, t0.plusSeconds(10), 15, 0));
  }

  @Test
  void aLeaderWhoseLeaseWasDeletedStopsLeadingThenCreatesItAnew() {
    a.round(la);
    leases.delete(NS, LEASE);
    log.clear();

    clock.advance(RENEW);
    assertThat(a.round(la)).isEqualTo(RETRY);
    clock.advance(RETRY);
    assertThat(a.round(la)).isEqualTo(RENEW);

    assertThat(log)
        .containsExactly(
            "REPLACE a (HTTP 404)",
            "GET",
            "stoppedLeading a",
            "GET",
            "CREATE a",
            "startedLeading a");
    Instant now = t0.plusSeconds(7);
    assertThat(record()).isEqualTo(new ElectionRecord("a", now, now, 15, 0));
  }

  @Test
  void failedRenewalsAreRetriedUntilTheNextTryWouldComeAfterTheLeaseExpires() {
    a.round(la);
    clock.advance(RENEW);
    a.round(la); // renewed at t0 + 5 s: the lease counts until t0 + 20 s
    log.clear();
    List<Boolean> leading = new ArrayList<>();
    List<Duration> pauses = new ArrayList<>();

    try (LogCapture logs = LogCapture.open()) {
      clock.advance(RENEW);
      for (int round = 0; round < 5; round++) { // at t0 + 10, 12, 14, 16 and 18 s
        leases.failNext(500);
        pauses.add(a.round(la));
        leading.add(a.isLeader());
        clock.advance(RETRY);
      }

      assertThat(logs.messages(Level.WARN))
          .hasSize(5)
          .containsOnly(
              "leader election of a: replace Lease ns/capstan-controller failed (HTTP 500):"
                  + " injected; next try in 2s");
    }
    // the round at t0 + 18 s gives up: the next one, at t0 + 20 s, would come too late
    assertThat(leading).containsExactly(true, true, true, true, false);
    assertThat(pauses).containsOnly(RETRY);
    assertThat(log.subList(log.size() - 2, log.size()))
        .containsExactly("REPLACE a (HTTP 500)", "stoppedLeading a");
    assertThat(log).filteredOn("REPLACE a (HTTP 500)"::equals).hasSize(5);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "503 | get Lease ns/capstan-controller failed (HTTP 503): injected",
        "0   | get Lease ns/capstan-controller failed: no response: injected"
      })
  void anApiErrorIsLoggedInOneLineAndTheRoundTriedAgainAfterTheRetryPeriod(
      int status, String failure) {
    try (LogCapture logs = LogCapture.open()) {
      leases.failNext(status);

      assertThat(a.round(la)).isEqualTo(RETRY);
      assertThat(a.isLeader()).isFalse();
      clock.advance(RETRY);
      assertThat(a.round(la)).isEqualTo(RENEW);

      assertThat(logs.messages(Level.WARN))
          .containsExactly("leader election of a: " + failure + "; next try in 2s");
    }
    assertThat(log)
        .containsExactly("GET (HTTP " + status + ")", "GET", "CREATE a", "startedLeading a");
  }

  @Test
  void anUnexpectedFailureIsLoggedWithItsCauseAndTheRoundTriedAgain() {
    LeaseApi broken =
        new LeaseApi() {
          @Override
          public @Nullable V1Lease get(String namespace, String name) {
            throw new IllegalStateException("a Lease without metadata");
          }

          @Override
          public V1Lease create(String namespace, V1Lease lease) {
            throw new UnsupportedOperationException();
          }

          @Override
          public V1Lease replace(String namespace, String name, V1Lease lease) {
            throw new UnsupportedOperationException();
          }
        };
    LeaderElection elector =
        new LeaderElection(broken, NS, LEASE, "a", Timing.defaults(), clock, clock::sleep);

    try (LogCapture logs = LogCapture.open()) {
      assertThat(elector.round(la)).isEqualTo(RETRY);

      assertThat(logs.lines())
          .filteredOn(line -> line.level() == Level.WARN)
          .singleElement()
          .satisfies(
              line -> {
                assertThat(line.message())
                    .isEqualTo(
                        "leader election of a on Lease ns/capstan-controller failed;"
                            + " next try in 2s");
                assertThat(line.error()).hasMessage("a Lease without metadata");
              });
    }
  }

  @Test
  void aListenerThatThrowsIsLoggedAndTheReplicaStillLeads() {
    Listener throwing =
        new Listener() {
          @Override
          public void startedLeading() {
            throw new IllegalStateException("cannot start the informers");
          }

          @Override
          public void stoppedLeading() {}
        };

    try (LogCapture logs = LogCapture.open()) {
      assertThat(a.round(throwing)).isEqualTo(RENEW);

      assertThat(logs.messages(Level.WARN))
          .containsExactly("the leader election listener of a failed in startedLeading");
    }
    assertThat(a.isLeader()).isTrue();
  }

  @Test
  void aListenerThatOverflowsTheStackIsLoggedAndTheReplicaStillLeadsAndRenews() {
    Listener overflowing =
        new Listener() {
          @Override
          public void startedLeading() {
            log.add("startedLeading a");
            throw new StackOverflowError(); // as one Release's spec too deep to read would
          }

          @Override
          public void stoppedLeading() {}
        };

    try (LogCapture logs = LogCapture.open()) {
      assertThat(a.round(overflowing)).isEqualTo(RENEW);

      assertThat(logs.messages(Level.WARN))
          .containsExactly("the leader election listener of a failed in startedLeading");
    }
    clock.advance(RENEW);
    assertThat(a.round(overflowing)).isEqualTo(RENEW);

    assertThat(a.isLeader()).isTrue();
    assertThat(log).containsExactly("GET", "CREATE a", "startedLeading a", "REPLACE a");
    assertThat(record()).isEqualTo(new ElectionRecord("a", t0, t0.plus(RENEW), 15, 0));
  }

  @Test
  void resignStopsTheWorkFirstThenClearsTheHolderSoAnotherTakesOverAtOnce() {
    a.round(la);
    log.clear();
    clock.advance(Duration.ofSeconds(1));

    a.resign(la);

    assertThat(log).containsExactly("stoppedLeading a", "REPLACE -");
    Instant given = t0.plusSeconds(1);
    assertThat(record()).isEqualTo(new ElectionRecord(null, given, given, 1, 0));
    assertThat(a.isLeader()).isFalse();
    log.clear();
    LeaderElection b = elector("b");
    assertThat(b.round(listener("b"))).isEqualTo(RENEW);
    assertThat(log).containsExactly("GET", "REPLACE b", "startedLeading b");
    assertThat(record()).isEqualTo(new ElectionRecord("b", given, given, 15, 1));
  }

  @Test
  void resignAfterAnotherTookTheLeaseOverLeavesItAlone() {
    a.round(la);
    leases.put(NS, lease(new ElectionRecord("b", t0, t0, 15, 1)));
    log.clear();

    a.resign(la);

    assertThat(log).containsExactly("stoppedLeading a", "REPLACE - (HTTP 409)");
    assertThat(record()).isEqualTo(new ElectionRecord("b", t0, t0, 15, 1));
  }

  @Test
  void resignOfACandidateWritesNothing() {
    leases.put(NS, lease(new ElectionRecord("b", t0, t0, 15, 1)));
    a.round(la);
    log.clear();

    a.resign(la);

    assertThat(log).isEmpty();
  }

  @Test
  void closeOfAStartedLeaderEndsItsThreadAfterGivingTheLeaseUp() {
    LeaderElection elector =
        new LeaderElection(leases, NS, LEASE, "a", Timing.defaults(), clock, null);
    elector.start(la);
    Await.until("a to lead", Duration.ofSeconds(30), () -> elector.isLeader() ? true : null);

    elector.close();

    assertThat(log)
        .containsExactly("GET", "CREATE a", "startedLeading a", "stoppedLeading a", "REPLACE -");
    assertThat(elector.isLeader()).isFalse();
    assertThat(electionThreadAlive()).isFalse();
    assertThat(record().holder()).isNull();
  }

  @Test
  void haltEndsTheThreadWithoutAWordAndLeavesTheLeaseHeld() {
    LeaderElection elector =
        new LeaderElection(leases, NS, LEASE, "a", Timing.defaults(), clock, null);
    elector.start(la);
    Await.until("a to lead", Duration.ofSeconds(30), () -> elector.isLeader() ? true : null);

    elector.halt();

    assertThat(log).containsExactly("GET", "CREATE a", "startedLeading a");
    assertThat(elector.isLeader()).isFalse();
    assertThat(electionThreadAlive()).isFalse();
    assertThat(record()).isEqualTo(new ElectionRecord("a", t0, t0, 15, 0));
  }

  @Test
  void anElectionStartsOnceAndNeverAfterClose() {
    LeaderElection started =
        new LeaderElection(leases, NS, LEASE, "a", Timing.defaults(), clock, null);
    started.start(la);
    try {
      assertThatThrownBy(() -> started.start(la))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("the leader election of a on Lease ns/capstan-controller is RUNNING");
    } finally {
      started.close();
    }
    LeaderElection closed = elector("b");
    closed.close();
    assertThatThrownBy(() -> closed.start(la))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the leader election of b on Lease ns/capstan-controller is CLOSING");
  }

  @Test
  void timingsOutOfRangeAreRefusedNamingTheValue() {
    assertThatThrownBy(() -> timing(Duration.ofMillis(2_500), RENEW, RETRY))
        .hasMessage(
            "the lease duration must be whole seconds, at least 1s (the Lease's"
                + " leaseDurationSeconds): 2.5s");
    assertThatThrownBy(() -> timing(Duration.ofSeconds(5), RENEW, RETRY))
        .hasMessage(
            "the renew period must be positive and shorter than the lease duration (5s): 5s");
    assertThatThrownBy(() -> timing(Duration.ofSeconds(15), RENEW, Duration.ZERO))
        .hasMessage(
            "the retry period must be positive and shorter than the lease duration (15s): 0s");
    assertThatThrownBy(
            () -> new LeaderElection(leases, NS, LEASE, " ", Timing.defaults(), clock, null))
        .hasMessage("the identity of a candidate must not be blank: ' '");
  }

  private static Timing timing(Duration lease, Duration renew, Duration retry) {
    return new Timing(lease, renew, retry);
  }

  /**
   * An elector whose sleeper moves the manual clock: the rounds these tests run by hand never
   * sleep, and a started one's pauses pass at once.
   */
  private LeaderElection elector(String identity) {
    return new LeaderElection(leases, NS, LEASE, identity, Timing.defaults(), clock, clock::sleep);
  }

  /** A listener that writes its calls into the request log. */
  private Listener listener(String identity) {
    return new Listener() {
      @Override
      public void startedLeading() {
        log.add("startedLeading " + identity);
      }

      @Override
      public void stoppedLeading() {
        log.add("stoppedLeading " + identity);
      }
    };
  }

  private static V1Lease lease(ElectionRecord record) {
    return new V1Lease()
        .apiVersion("coordination.k8s.io/v1")
        .kind("Lease")
        .metadata(new V1ObjectMeta().name(LEASE).namespace(NS))
        .spec(record.toSpec(null));
  }

  private ElectionRecord record() {
    return ElectionRecord.of(Objects.requireNonNull(leases.lease(NS, LEASE)).getSpec());
  }

  private static boolean electionThreadAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals("capstan-leader-election-" + LEASE) && t.isAlive());
  }
}
