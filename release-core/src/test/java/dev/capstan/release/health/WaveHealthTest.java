package dev.capstan.release.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The time rules of one wait: verdicts kept once current, deleted objects judged by their last
 * state, an APIService's condition given {@link WaveHealth#API_SERVICE_PATIENCE} once the rest of
 * its wave is healthy, progress and time-out messages, all on a clock the test moves.
 */
class WaveHealthTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final ResourceRef JOB = ResourceRef.of(Kind.JOB, "shop", "once");
  private static final ResourceRef WEB = ResourceRef.of(Kind.DEPLOYMENT, "shop", "web");
  private static final ResourceRef METRICS =
      ResourceRef.of(Kind.API_SERVICE, "", "v1beta1.metrics.k8s.io");
  private static final ResourceRef CUSTOM =
      ResourceRef.of(Kind.API_SERVICE, "", "v1.custom.example.com");
  private static final ResourceRef LB = ResourceRef.of(Kind.SERVICE, "shop", "edge");
  private static final ResourceRef WIDGET =
      ResourceRef.of(Kind.of("example.com/v1", "Widget", true), "shop", "blue");
  private static final String DISCOVERY_FAILED =
      "failing or missing response from https://localhost:9/apis/metrics.k8s.io/v1beta1: connect:"
          + " connection refused";

  private static Instant at(int seconds) {
    return T0.plusSeconds(seconds);
  }

  private static Map<String, Object> object(
      String apiVersion, String kind, String namespace, String name) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", name);
    if (!namespace.isEmpty()) {
      metadata.put("namespace", namespace);
    }
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("apiVersion", apiVersion);
    o.put("kind", kind);
    o.put("metadata", metadata);
    return o;
  }

  private static Map<String, Object> condition(
      String type, String status, String reason, String message) {
    return Map.of("type", type, "status", status, "reason", reason, "message", message);
  }

  private static Map<String, Object> job(boolean complete, boolean deleting) {
    Map<String, Object> o = object("batch/v1", "Job", "shop", "once");
    if (deleting) {
      @SuppressWarnings("unchecked")
      Map<String, Object> meta =
          (Map<String, Object>) java.util.Objects.requireNonNull(o.get("metadata"));
      meta.put("deletionTimestamp", "2026-01-01T00:00:01Z");
      meta.put("finalizers", List.of("foregroundDeletion"));
    }
    o.put(
        "status",
        complete
            ? Map.of(
                "succeeded",
                1,
                "conditions",
                List.of(condition("Complete", "True", "CompletionsReached", "")))
            : Map.of("active", 1));
    return o;
  }

  private static Map<String, Object> failedJob() {
    Map<String, Object> o = object("batch/v1", "Job", "shop", "once");
    o.put(
        "status",
        Map.of(
            "failed",
            7,
            "conditions",
            List.of(
                condition(
                    "Failed",
                    "True",
                    "BackoffLimitExceeded",
                    "Job has reached the specified backoff limit"))));
    return o;
  }

  private static Map<String, Object> deployment(long available) {
    Map<String, Object> o = object("apps/v1", "Deployment", "shop", "web");
    o.put("spec", Map.of("replicas", 2));
    o.put(
        "status",
        Map.of(
            "observedGeneration",
            1,
            "replicas",
            2,
            "updatedReplicas",
            2,
            "availableReplicas",
            available));
    return o;
  }

  private static Map<String, Object> apiService(
      String name, String status, String reason, String message) {
    Map<String, Object> o = object("apiregistration.k8s.io/v1", "APIService", "", name);
    o.put(
        "spec",
        Map.of(
            "service", Map.of("namespace", "kube-system", "name", "metrics-server", "port", 443)));
    if (!status.isEmpty()) {
      o.put(
          "status", Map.of("conditions", List.of(condition("Available", status, reason, message))));
    }
    return o;
  }

  private static Map<String, Object> metrics(String status, String reason, String message) {
    return apiService("v1beta1.metrics.k8s.io", status, reason, message);
  }

  private static WaveHealth wave(ResourceRef... refs) {
    return new WaveHealth(List.of(refs), true, T0);
  }

  private static void see(WaveHealth w, ResourceRef ref, Map<String, Object> o, Instant now) {
    w.observe(ref, o, List.of(), HealthRules.VolumeBinding.IMMEDIATE, now);
  }

  @Test
  void anObjectOnceCurrentStaysCurrentWhateverIsSeenLater() {
    WaveHealth w = wave(JOB, WEB);
    see(w, JOB, job(true, false), at(1));
    see(w, JOB, failedJob(), at(2));
    see(w, WEB, deployment(2), at(3));

    assertThat(w.isCurrent(JOB)).isTrue();
    assertThat(w.decide(at(3))).isEqualTo(Readiness.ready());
  }

  @Test
  void aJobItsTtlDeletedAfterItCompletedIsHealthyFromItsDeletionEventAlone() {
    WaveHealth w = wave(JOB);
    see(w, JOB, job(false, false), at(0));

    Health h = w.deleted(JOB, job(true, true), at(1));

    assertThat(h).isEqualTo(Health.current());
    assertThat(w.decide(at(1))).isEqualTo(Readiness.ready());
  }

  @Test
  void aCompletedJobBeingDeletedInTheForegroundIsAlreadyCurrent() {
    WaveHealth w = wave(JOB);
    see(w, JOB, job(true, true), at(1));

    assertThat(w.decide(at(1))).isEqualTo(Readiness.ready());
  }

  @Test
  void anObjectDeletedBeforeItWasDoneFailsAtOnceNamingItAndItsLastState() {
    WaveHealth w = wave(JOB, WEB);
    see(w, WEB, deployment(0), at(0));

    w.deleted(JOB, job(false, true), at(1));

    Readiness r = java.util.Objects.requireNonNull(w.decide(at(1)));
    assertThat(r)
        .isEqualTo(
            Readiness.failed(
                JOB,
                "Job shop/once: deleted before it was healthy; last seen: 0 succeeded, 1 active, 0"
                    + " failed"));
    assertThat(r.describe())
        .isEqualTo(
            "batch/Job/shop/once is not ready: Job shop/once: deleted before it was healthy; last"
                + " seen: 0 succeeded, 1 active, 0 failed");
  }

  @Test
  void aDeletedJobThatHadFailedFailsWithItsOwnReason() {
    WaveHealth w = wave(JOB);

    w.deleted(JOB, failedJob(), at(1));

    assertThat(w.decide(at(1)))
        .isEqualTo(
            Readiness.failed(
                JOB,
                "Job shop/once: BackoffLimitExceeded: Job has reached the specified backoff limit;"
                    + " then it was deleted"));
  }

  @Test
  void aMissingObjectFailsAtOnceWithTheDetailGiven() {
    WaveHealth w = wave(WEB, JOB);
    w.missing(JOB, "deleted after it was applied; its last state was not seen", at(0));
    w.missing(WEB, null, at(0));

    assertThat(w.decide(at(0))).isEqualTo(Readiness.failed(WEB, "Deployment shop/web: not found"));
    assertThat(w.reasons())
        .containsEntry(
            JOB,
            "Job shop/once: not found (deleted after it was applied; its last state was not seen)");
  }

  @Test
  void anApiServiceAloneThatStaysUnavailableFailsOncePatienceRunsOutWithItsReason() {
    WaveHealth w = wave(METRICS);
    see(w, METRICS, metrics("False", "FailedDiscoveryCheck", DISCOVERY_FAILED), at(2));
    see(w, METRICS, metrics("False", "FailedDiscoveryCheck", DISCOVERY_FAILED + "!"), at(20));

    assertThat(w.nextDecision()).isEqualTo(at(38));
    assertThat(w.decide(at(37))).isNull();
    assertThat(w.decide(at(38)))
        .isEqualTo(
            Readiness.failed(
                METRICS,
                "APIService v1beta1.metrics.k8s.io: Available=False: FailedDiscoveryCheck: "
                    + DISCOVERY_FAILED
                    + "!; unchanged for 36s once the rest of the wave was healthy (the aggregator"
                    + " re-checks an APIService at least every 30s)"));
  }

  @Test
  void aBackendDeploymentStillRollingOutHoldsTheApiServiceClockBack() {
    WaveHealth w = wave(WEB, METRICS);
    see(w, METRICS, metrics("False", "MissingEndpoints", "no addresses"), at(0));
    see(w, WEB, deployment(0), at(0));

    assertThat(w.nextDecision()).isNull();
    assertThat(w.decide(at(50))).isNull();

    see(w, WEB, deployment(2), at(50));
    assertThat(w.nextDecision()).isEqualTo(at(86));
    assertThat(w.decide(at(85))).isNull();
    assertThat(w.decide(at(86)))
        .isInstanceOfSatisfying(
            Readiness.Failed.class,
            f ->
                assertThat(f.reason())
                    .startsWith(
                        "APIService v1beta1.metrics.k8s.io: Available=False: MissingEndpoints: no"
                            + " addresses; unchanged for 36s"));
  }

  @Test
  void metricsServersShapeABackendReadyAfterTheApiServiceSucceeds() {
    WaveHealth w = wave(WEB, METRICS);
    see(w, METRICS, metrics("", "", ""), at(0));
    see(w, METRICS, metrics("False", "MissingEndpoints", "no addresses"), at(1));
    see(w, WEB, deployment(1), at(1));
    see(w, WEB, deployment(2), at(20));
    see(w, METRICS, metrics("False", "FailedDiscoveryCheck", DISCOVERY_FAILED), at(21));

    assertThat(w.decide(at(56))).isNull();
    see(w, METRICS, metrics("True", "Passed", "all checks passed"), at(25));

    assertThat(w.decide(at(25))).isEqualTo(Readiness.ready());
  }

  @Test
  void aNewReasonStartsThePatienceAgain() {
    WaveHealth w = wave(METRICS);
    see(
        w,
        METRICS,
        metrics("False", "ServiceNotFound", "service/metrics-server is not present"),
        at(0));
    see(w, METRICS, metrics("False", "MissingEndpoints", "no addresses"), at(30));

    assertThat(w.decide(at(40))).isNull();
    assertThat(w.nextDecision()).isEqualTo(at(66));
    assertThat(w.decide(at(66))).isInstanceOf(Readiness.Failed.class);
  }

  @Test
  void anUnknownOrUncheckedAvailabilityIsNeverTimed() {
    WaveHealth w = wave(METRICS, CUSTOM);
    see(w, METRICS, metrics("Unknown", "ServiceAccessError", "cannot be checked"), at(0));
    see(w, CUSTOM, apiService("v1.custom.example.com", "", "", ""), at(0));

    assertThat(w.nextDecision()).isNull();
    assertThat(w.decide(at(3600))).isNull();
  }

  @Test
  void everyUnavailableApiServiceOfAWaveIsTimedTheFirstInOrderFailsWhenBothRanOut() {
    WaveHealth w = wave(CUSTOM, METRICS);
    see(w, METRICS, metrics("False", "FailedDiscoveryCheck", DISCOVERY_FAILED), at(0));
    see(
        w,
        CUSTOM,
        apiService("v1.custom.example.com", "False", "FailedDiscoveryCheck", "bad status: 500"),
        at(1));

    assertThat(w.decide(at(35))).isNull();
    assertThat(w.decide(at(37)))
        .isInstanceOfSatisfying(
            Readiness.Failed.class, f -> assertThat(f.object()).isEqualTo(CUSTOM));
    WaveHealth later = wave(CUSTOM, METRICS);
    see(later, METRICS, metrics("False", "FailedDiscoveryCheck", DISCOVERY_FAILED), at(0));
    see(
        later,
        CUSTOM,
        apiService("v1.custom.example.com", "False", "FailedDiscoveryCheck", "bad status: 500"),
        at(1));
    assertThat(later.decide(at(36)))
        .isInstanceOfSatisfying(
            Readiness.Failed.class, f -> assertThat(f.object()).isEqualTo(METRICS));
  }

  @Test
  void aLoadBalancerServiceWaitsForItsAddressOnlyWhenAskedTo() {
    Map<String, Object> edge = object("v1", "Service", "shop", "edge");
    edge.put("spec", Map.of("type", "LoadBalancer"));
    edge.put("status", Map.of("loadBalancer", Map.of()));

    WaveHealth waiting = new WaveHealth(List.of(LB), true, T0);
    see(waiting, LB, edge, at(0));
    WaveHealth notWaiting = new WaveHealth(List.of(LB), false, T0);
    see(notWaiting, LB, edge, at(0));

    assertThat(waiting.decide(at(0))).isNull();
    assertThat(waiting.timedOut(Duration.ofMinutes(15)).describe())
        .isEqualTo(
            "not ready after 15m: Service shop/edge: type LoadBalancer has no address yet"
                + " (status.loadBalancer.ingress)");
    assertThat(notWaiting.decide(at(0))).isEqualTo(Readiness.ready());
  }

  @Test
  void progressIsFirstDueAfterFiveSecondsThenOnChangeAtMostEveryFiveAndEveryThirtyWhenQuiet() {
    WaveHealth w = wave(JOB, WIDGET);
    see(w, JOB, job(false, false), at(0));

    assertThat(w.progress(at(4))).isNull();
    Readiness.Progress first = w.progress(at(5));
    assertThat(first).isNotNull();
    assertThat(first.describe())
        .isEqualTo(
            "still waiting after 5s for 2 of 2 object(s): Job shop/once: 0 succeeded, 1 active, 0"
                + " failed; Widget shop/blue: not yet seen");
    assertThat(w.nextProgress()).isEqualTo(at(35));
    assertThat(w.progress(at(34))).isNull();

    Map<String, Object> blue = object("example.com/v1", "Widget", "shop", "blue");
    blue.put(
        "status",
        Map.of("conditions", List.of(condition("Ready", "False", "Provisioning", "disk 1 of 2"))));
    see(w, WIDGET, blue, at(36));
    // changed, and the last report is more than 5 s old: due at once
    assertThat(w.nextProgress()).isEqualTo(at(10));
    Readiness.Progress second = w.progress(at(36));
    assertThat(second).isNotNull();
    assertThat(second.describe())
        .isEqualTo(
            "still waiting after 36s for 2 of 2 object(s): Job shop/once: 0 succeeded, 1 active, 0"
                + " failed; Widget shop/blue: Ready=False: Provisioning: disk 1 of 2");

    see(w, JOB, job(true, false), at(38));
    assertThat(w.nextProgress()).isEqualTo(at(41));
    assertThat(w.progress(at(40))).isNull();
    Readiness.Progress third = w.progress(at(41));
    assertThat(third).isNotNull();
    assertThat(third.describe())
        .isEqualTo(
            "still waiting after 41s for 1 of 2 object(s): Widget shop/blue: Ready=False:"
                + " Provisioning: disk 1 of 2");
    assertThat(w.nextProgress()).isEqualTo(at(71));
  }

  @Test
  void nothingIsReportedOnceEverythingIsCurrent() {
    WaveHealth w = wave(JOB);
    see(w, JOB, job(true, false), at(0));

    assertThat(w.progress(at(60))).isNull();
  }

  @Test
  void aTimeOutNamesEachPendingObjectWithWhatItWaitsForAndCountsBeyondFive() {
    List<ResourceRef> refs = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      refs.add(ResourceRef.of(Kind.JOB, "shop", "job-" + i));
    }
    WaveHealth w = new WaveHealth(refs, true, T0);
    Map<String, Object> job0 = object("batch/v1", "Job", "shop", "job-0");
    job0.put("status", Map.of("active", 1));
    see(w, refs.get(0), job0, at(1));

    assertThat(w.timedOut(Duration.ofSeconds(179).plusMillis(554)).describe())
        .isEqualTo(
            "not ready after 2m59s: Job shop/job-0: 0 succeeded, 1 active, 0 failed; Job"
                + " shop/job-1: not yet seen; Job shop/job-2: not yet seen; Job shop/job-3: not yet"
                + " seen; Job shop/job-4: not yet seen; and 2 more");
  }

  @Test
  void refusesAnObjectItDoesNotWaitFor() {
    WaveHealth w = wave(JOB);

    assertThatThrownBy(() -> see(w, WEB, deployment(2), at(0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not waited for: apps/Deployment/shop/web");
  }
}
