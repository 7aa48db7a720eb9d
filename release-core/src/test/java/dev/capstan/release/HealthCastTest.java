package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.health.HealthRule;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * A cast's health wait explains itself: the blocking condition's type, reason and message in the
 * failure, terminal conditions and unavailable APIServices fail at once, a LoadBalancer Service
 * waits for its address only when asked, progress reaches the listener. On the in-memory cluster,
 * with objects that report a status as their controllers would.
 */
class HealthCastTest {
  private static final Kind WIDGET = Kind.of("example.com/v1", "Widget", true);
  private static final ResourceRef BLUE = ResourceRef.of(WIDGET, NS, "blue");
  private static final ResourceRef METRICS =
      ResourceRef.of(Kind.API_SERVICE, "", "v1beta1.metrics.k8s.io");
  private static final ResourceRef EDGE = ResourceRef.of(Kind.SERVICE, NS, "edge");

  private final Fixtures.Harness h = new Fixtures.Harness();

  private static Payloads widget() {
    return payloads(
        yaml(
            """
            apiVersion: example.com/v1
            kind: Widget
            metadata: {name: blue}
            spec: {size: 2}
            """));
  }

  private static Payloads apiService() {
    return payloads(
        yaml(
            """
            apiVersion: apiregistration.k8s.io/v1
            kind: APIService
            metadata: {name: v1beta1.metrics.k8s.io}
            spec:
              group: metrics.k8s.io
              version: v1beta1
              groupPriorityMinimum: 100
              versionPriority: 100
              service: {namespace: kube-system, name: metrics-server, port: 443}
            """));
  }

  private static Payloads loadBalancer() {
    return payloads(
        yaml(
            """
            apiVersion: v1
            kind: Service
            metadata: {name: edge}
            spec:
              type: LoadBalancer
              selector: {app: edge}
              ports: [{name: http, port: 80}]
            """));
  }

  private CastFailedException failedCast(ReleaseSpec spec, Payloads p) {
    CastFailedException e =
        catchThrowableOfType(CastFailedException.class, () -> h.controller.cast(spec, p));
    assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    return e;
  }

  @Test
  void anApiServiceWhoseBackendNeverAnswersFailsWithTheConditionsReasonNotATimeOut() {
    h.cluster.reportCondition(
        METRICS,
        "Available",
        "False",
        "FailedDiscoveryCheck",
        "failing or missing response from https://localhost:9443/apis/metrics.k8s.io/v1beta1");

    CastFailedException e = failedCast(Fixtures.spec("metrics", apiService()), apiService());

    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: apiregistration.k8s.io/APIService//v1beta1.metrics.k8s.io is not"
                + " ready: APIService v1beta1.metrics.k8s.io: Available=False:"
                + " FailedDiscoveryCheck: failing or missing response from"
                + " https://localhost:9443/apis/metrics.k8s.io/v1beta1; unchanged for 36s once the"
                + " rest of the wave was healthy (the aggregator re-checks an APIService at least"
                + " every 30s)");
  }

  @Test
  void aWaitShorterThanTheApiServicesPatienceTimesOutNamingItsCondition() {
    h.cluster.reportCondition(METRICS, "Available", "False", "MissingEndpoints", "no addresses");
    ReleaseSpec spec =
        Fixtures.spec("metrics", apiService())
            .withOptions(ReleaseOptions.defaults().withTimeout(Duration.ofSeconds(20)));

    CastFailedException e = failedCast(spec, apiService());

    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: not ready after 20s: APIService v1beta1.metrics.k8s.io:"
                + " Available=False: MissingEndpoints: no addresses"
                + "; if what is pending only needs longer, cast again with a longer timeout (the"
                + " CLI's --timeout): the next cast finishes this revision");
  }

  @Test
  void anUnschedulablePodIsWaitedForAndItsTimeOutNamesTheSchedulersReason() {
    Payloads tool =
        payloads(
            yaml(
                """
                apiVersion: v1
                kind: Pod
                metadata: {name: tool}
                spec:
                  containers: [{name: tool, image: acme/tool:1}]
                """));
    h.cluster.reportStatus(
        ResourceRef.of(Kind.POD, NS, "tool"),
        Map.of(
            "phase",
            "Pending",
            "conditions",
            List.of(
                Map.of(
                    "type",
                    "PodScheduled",
                    "status",
                    "False",
                    "reason",
                    "Unschedulable",
                    "message",
                    "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."))));
    ReleaseSpec spec =
        Fixtures.spec("tool", tool)
            .withOptions(ReleaseOptions.defaults().withTimeout(Duration.ofSeconds(90)));

    CastFailedException e = failedCast(spec, tool);

    // in progress, not failed: a time-out, after the whole timeout, naming the pod and why
    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: not ready after 1m30s: Pod default/tool: Unschedulable: 0/2 nodes are"
                + " available: pod has unbound immediate PersistentVolumeClaims."
                + "; if what is pending only needs longer, cast again with a longer timeout (the"
                + " CLI's --timeout): the next cast finishes this revision");
  }

  @Test
  void aCustomResourceThatIsNotReadyTimesOutWithItsReadyConditionsReasonAndMessage() {
    h.cluster.serve(WIDGET);
    h.cluster.reportCondition(BLUE, "Ready", "False", "Provisioning", "disk 1 of 2 attached");

    CastFailedException e = failedCast(Fixtures.spec("widgets", widget()), widget());

    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: not ready after 15m: Widget default/blue: Ready=False: Provisioning:"
                + " disk 1 of 2 attached"
                + "; if what is pending only needs longer, cast again with a longer timeout (the"
                + " CLI's --timeout): the next cast finishes this revision");
  }

  @Test
  void aStalledCustomResourceFailsAtOnce() {
    h.cluster.serve(WIDGET);
    h.cluster.reportStatus(
        BLUE,
        Map.of(
            "conditions",
            List.of(
                Map.of(
                    "type", "Stalled",
                    "status", "True",
                    "reason", "InvalidSpec",
                    "message", "size must be even"))));

    CastFailedException e = failedCast(Fixtures.spec("widgets", widget()), widget());

    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: example.com/Widget/default/blue is not ready: Widget default/blue:"
                + " Stalled=True: InvalidSpec: size must be even");
  }

  @Test
  void aCustomResourceThatBecomesReadyCasts() {
    h.cluster.serve(WIDGET);
    h.cluster.reportCondition(BLUE, "Ready", "False", "Provisioning", "disk 1 of 2 attached");
    h.cluster.reportCondition(BLUE, "Ready", "True", "Provisioned", "");

    assertThat(h.cast("widgets", widget()).release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void aLoadBalancerServiceWithoutAnAddressWaitsByDefaultAndNotWhenTheOptionIsOff() {
    h.cluster.reportStatus(EDGE, Map.of("loadBalancer", Map.of()));
    ReleaseSpec waiting =
        Fixtures.spec("edge", loadBalancer())
            .withOptions(ReleaseOptions.defaults().withTimeout(Duration.ofMinutes(2)));

    CastFailedException e = failedCast(waiting, loadBalancer());
    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: not ready after 2m: Service default/edge: type LoadBalancer has no"
                + " address yet (status.loadBalancer.ingress); a cluster without a load balancer"
                + " controller never gives a Service of type LoadBalancer an address: cast with"
                + " waitForLoadBalancer off (the CLI's --no-wait-for-load-balancer) to count it"
                + " healthy once it exists"
                + "; if what is pending only needs longer, cast again with a longer timeout (the"
                + " CLI's --timeout): the next cast finishes this revision");

    ReleaseSpec notWaiting = waiting.withOptions(waiting.options().withWaitForLoadBalancer(false));
    assertThat(h.controller.cast(notWaiting, loadBalancer()).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void theWaitHearsTheOptionsAndItsProgressReachesTheListenerAsStillWaiting() {
    List<ReadinessWait> waits = new CopyOnWriteArrayList<>();
    List<ReleaseEvent> events =
        castReporting(
            loadBalancer(),
            (objects, wait) -> {
              waits.add(wait);
              return new Readiness.Progress(
                  Duration.ofSeconds(5),
                  objects.size(),
                  objects,
                  Map.of(objects.get(0), "Service default/edge: type LoadBalancer has no"));
            });

    assertThat(waits).singleElement().satisfies(w -> assertThat(w.waitForLoadBalancer()).isFalse());
    assertThat(waits.get(0).timeout()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(15));
    assertThat(events)
        .filteredOn(ReleaseEvent.StillWaiting.class::isInstance)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.describe())
                    .isEqualTo(
                        "still waiting after 5s for 1 of 1 object(s): Service default/edge: type"
                            + " LoadBalancer has no"));
  }

  @Test
  void progressCountsThePendingAgainstEveryObjectTheWaveWaitsFor() {
    // an orchestrator that follows the LoadBalancer alone: the two ConfigMaps need nothing
    List<ReleaseEvent> events =
        castReporting(
            loadBalancer().with(Fixtures.configMap("a", "v")).with(Fixtures.configMap("b", "v")),
            (objects, wait) ->
                new Readiness.Progress(
                    Duration.ofSeconds(5),
                    1,
                    List.of(EDGE),
                    Map.of(EDGE, "Service default/edge: type LoadBalancer has no")));

    assertThat(events)
        .filteredOn(
            e -> e instanceof ReleaseEvent.Verifying || e instanceof ReleaseEvent.StillWaiting)
        .extracting(ReleaseEvent::describe)
        .containsExactly(
            "waiting up to 15m for 3 object(s) to be healthy",
            "still waiting after 5s for 1 of 3 object(s): Service default/edge: type LoadBalancer"
                + " has no");
  }

  /**
   * The events of a cast of {@code payloads} (not waiting for a load balancer's address) whose
   * health wait first reports the progress {@code progress} makes of the objects and the wait.
   */
  private static List<ReleaseEvent> castReporting(
      Payloads payloads,
      BiFunction<List<ResourceRef>, ReadinessWait, Readiness.Progress> progress) {
    InMemoryCluster cluster = InMemoryCluster.create();
    Orchestrator reporting =
        new ForwardingOrchestrator(cluster) {
          @Override
          public Readiness awaitReady(List<ResourceRef> objects, ReadinessWait wait) {
            wait.progress().accept(progress.apply(objects, wait));
            return super.awaitReady(objects, wait);
          }
        };
    List<ReleaseEvent> events =
        new CopyOnWriteArrayList<>(); // listeners hear the cast's workers too
    ReleaseController controller =
        ReleaseController.builder(reporting, cluster)
            .listener((ReleaseListener) events::add)
            .build();
    controller.cast(
        Fixtures.spec("edge", payloads)
            .withOptions(ReleaseOptions.defaults().withWaitForLoadBalancer(false)),
        payloads);
    return events;
  }

  // ------------------------------------------------------------ health rules
  // (docs/health-rules.md)

  private static final HealthRule MEMBERS =
      HealthRule.current(
              "example.com/Widget",
              "has(self.status) && self.status.phase == 'Running'"
                  + " && self.status.readyMembers == self.spec.size")
          .withFailed("has(self.status) && self.status.phase == 'Failed'");

  private static ReleaseSpec ruled(HealthRule... rules) {
    ReleaseSpec spec = Fixtures.spec("widgets", widget());
    return spec.withOptions(spec.options().withHealthRules(List.of(rules)));
  }

  @Test
  void aHealthRuleWaitsForWhatTheBuiltInRulesCallCurrentAndSaysWhatItSaw() {
    h.cluster.serve(WIDGET);
    h.cluster.reportStatus(BLUE, Map.of("phase", "Running", "readyMembers", 1));

    CastFailedException e = failedCast(ruled(MEMBERS), widget());

    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: not ready after 15m: Widget default/blue: health rule"
                + " example.com/Widget: current does not hold yet: has(self.status) &&"
                + " self.status.phase == 'Running' && self.status.readyMembers =="
                + " self.spec.size; saw status.phase='Running', status.readyMembers=1,"
                + " spec.size=2"
                + "; if what is pending only needs longer, cast again with a longer timeout (the"
                + " CLI's --timeout): the next cast finishes this revision");
  }

  @Test
  void aHealthRulesFailedExpressionFailsTheCastAtOnceNamingTheRule() {
    h.cluster.serve(WIDGET);
    h.cluster.reportStatus(BLUE, Map.of("phase", "Failed"));

    CastFailedException e = failedCast(ruled(MEMBERS), widget());

    assertThat(e.result().release().failure())
        .isEqualTo(
            "verify failed: example.com/Widget/default/blue is not ready: Widget default/blue:"
                + " health rule example.com/Widget: failed holds: has(self.status) &&"
                + " self.status.phase == 'Failed'; saw status.phase='Failed',"
                + " status.readyMembers (absent), spec.size=2");
  }

  @Test
  void aHealthRuleThatHoldsCasts() {
    h.cluster.serve(WIDGET);
    h.cluster.reportStatus(BLUE, Map.of("phase", "Running", "readyMembers", 2));

    assertThat(h.controller.cast(ruled(MEMBERS), widget()).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void aBadHealthRuleIsRefusedBeforeTheLeaseWithItsPosition() {
    h.cluster.serve(WIDGET);
    h.cluster.clearOperations();

    assertThatThrownBy(
            () ->
                h.controller.cast(
                    ruled(HealthRule.current("example.com/Widget", "self.status.phase = 'x'")),
                    widget()))
        .isInstanceOf(dev.capstan.release.error.InvalidReleaseException.class)
        .hasMessageContaining("options.healthRules[0] (example.com/Widget).current: 1:19: ");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.operations()).noneMatch(o -> o.startsWith("lease:"));
  }
}
