package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.controller.LeaderElection.Listener;
import dev.capstan.controller.LeaderElection.Timing;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Two replicas' elections on one Lease of the real API server. Who leads, what the Lease says and
 * in which order the listeners were called are asserted exactly; how long a take-over took is only
 * bounded by {@link #TIMEOUT}, and where it matters that a take-over did not wait for an expiry,
 * the lease is made to count far longer than that bound.
 */
@ControlPlaneTest
class LeaderElectionIT {
  private static final String LEASE = "capstan-controller";
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** A short lease, for the take-over after a leader died. */
  private static final Timing SHORT =
      new Timing(Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(500));

  /** A lease that outlasts {@link #TIMEOUT}: no candidate takes it over by expiry in a test. */
  private static final Timing LONG =
      new Timing(Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofMillis(500));

  @Test
  void ofTwoElectorsOnOneLeaseExactlyOneLeadsAndTheLeaseNamesIt(
      ControlPlane plane, TestNamespace ns) throws ApiException {
    List<String> events = new CopyOnWriteArrayList<>();
    try (LeaderElection a = elector(plane, ns, "a", LONG);
        LeaderElection b = elector(plane, ns, "b", LONG)) {
      a.start(recording("a", events));
      b.start(recording("b", events));

      String leader =
          Await.until(
              "one of the two to lead",
              TIMEOUT,
              () -> a.isLeader() ? "a" : b.isLeader() ? "b" : null);
      V1Lease renewed =
          Await.until(
              "the leader to renew three times",
              TIMEOUT,
              () -> read(plane, ns),
              lease ->
                  !lease
                      .getSpec()
                      .getRenewTime()
                      .isBefore(lease.getSpec().getAcquireTime().plusSeconds(3)));

      assertThat(List.of(a.isLeader(), b.isLeader()))
          .containsExactly(leader.equals("a"), leader.equals("b"));
      assertThat(events).containsExactly(leader + " started");
      assertThat(ElectionRecord.of(renewed.getSpec()).holder()).isEqualTo(leader);
      assertThat(renewed.getSpec().getLeaseDurationSeconds()).isEqualTo(60);
      assertThat(renewed.getSpec().getLeaseTransitions()).isZero();
    }
  }

  @Test
  void whenTheLeaderDiesWithoutGivingUpTheOtherTakesOverOnceItsLeaseExpired(
      ControlPlane plane, TestNamespace ns) throws ApiException {
    List<String> events = new CopyOnWriteArrayList<>();
    try (LeaderElection a = elector(plane, ns, "a", SHORT);
        LeaderElection b = elector(plane, ns, "b", SHORT)) {
      a.start(recording("a", events));
      Await.until("a to lead", TIMEOUT, () -> a.isLeader() ? true : null);
      b.start(recording("b", events));

      a.halt();
      V1Lease last = read(plane, ns);
      Await.until("b to lead", TIMEOUT, () -> b.isLeader() ? true : null);
      V1Lease taken = read(plane, ns);

      assertThat(ElectionRecord.of(last.getSpec()).holder()).isEqualTo("a");
      ElectionRecord record = ElectionRecord.of(taken.getSpec());
      assertThat(record.holder()).isEqualTo("b");
      assertThat(record.leaseTransitions()).isEqualTo(1);
      Instant expired = ElectionRecord.of(last.getSpec()).expiresAt();
      assertThat(record.acquireTime()).isAfter(expired);
      assertThat(taken.getMetadata().getUid()).isEqualTo(last.getMetadata().getUid());
      assertThat(events).containsExactly("a started", "b started");
      assertThat(a.isLeader()).isFalse();
    }
  }

  @Test
  void whenTheLeaderClosesTheOtherTakesOverAtOnceWithoutWaitingForTheExpiry(
      ControlPlane plane, TestNamespace ns) throws ApiException {
    List<String> events = new CopyOnWriteArrayList<>();
    LeaderElection a = elector(plane, ns, "a", LONG);
    try (LeaderElection b = elector(plane, ns, "b", LONG)) {
      a.start(recording("a", events));
      Await.until("a to lead", TIMEOUT, () -> a.isLeader() ? true : null);
      b.start(recording("b", events));
      V1Lease held = read(plane, ns);

      a.close();
      Await.until("b to lead", TIMEOUT, () -> b.isLeader() ? true : null);
      V1Lease taken = read(plane, ns);

      ElectionRecord record = ElectionRecord.of(taken.getSpec());
      assertThat(record.holder()).isEqualTo("b");
      assertThat(record.leaseTransitions()).isEqualTo(1);
      // a's lease counted for 60 s after its last renewal: b took the Lease a gave up
      Instant wouldExpire = ElectionRecord.of(held.getSpec()).expiresAt();
      assertThat(record.acquireTime()).isBefore(wouldExpire);
      assertThat(taken.getMetadata().getUid()).isEqualTo(held.getMetadata().getUid());
      assertThat(events).containsExactly("a started", "a stopped", "b started");
      assertThat(a.isLeader()).isFalse();
    } finally {
      a.close();
    }
  }

  private static LeaderElection elector(
      ControlPlane plane, TestNamespace ns, String identity, Timing timing) {
    return new LeaderElection(plane.client(), ns.name(), LEASE, identity, timing);
  }

  private static V1Lease read(ControlPlane plane, TestNamespace ns) throws ApiException {
    return new CoordinationV1Api(plane.client()).readNamespacedLease(LEASE, ns.name()).execute();
  }

  private static Listener recording(String identity, List<String> events) {
    return new Listener() {
      @Override
      public void startedLeading() {
        events.add(identity + " started");
      }

      @Override
      public void stoppedLeading() {
        events.add(identity + " stopped");
      }
    };
  }
}
