package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRuleCompiler;
import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A health rule in CEL on the real control plane: a CRD of the test's own whose readiness only a
 * rule can express (a phase and a count of ready members; the built-in rules call it current as
 * soon as it exists), the test playing its controller by writing status through the status
 * subresource. In progress (the rule's {@code inProgress}, then {@code current} not yet holding),
 * current and failed are each recognised by the Kubernetes adapter's wait, and a cast fails with
 * the message naming the rule and what it saw.
 */
@ControlPlaneTest
class HealthRuleIT {
  private static final Duration PATIENT = Duration.ofMinutes(5);

  private static String group(String ns) {
    return ns + ".rules.capstan.dev";
  }

  private static HealthRule rule(String group) {
    return HealthRule.current(
            group + "/Widget",
            "has(self.status) && self.status.phase == 'Running'"
                + " && self.status.readyMembers == self.spec.members")
        .withInProgress(
            "has(self.status) && has(self.status.observedGeneration)"
                + " && self.status.observedGeneration < self.metadata.generation")
        .withFailed("has(self.status) && self.status.phase == 'Failed'");
  }

  private static void widgetCrd(Cluster cluster, String ns) throws ApiException {
    Widgets.createCrd(cluster, group(ns), ns, PATIENT);
  }

  private static DynamicKubernetesApi widgets(Cluster cluster, String group) {
    return Widgets.api(cluster, group);
  }

  private static void deleteCrd(Cluster cluster, String ns) {
    Widgets.deleteCrd(cluster, group(ns));
  }

  private static Manifest blue(String ns) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            group(ns) + "/v1",
            "kind",
            "Widget",
            "metadata",
            Map.of("name", "blue", "namespace", ns),
            "spec",
            Map.of("members", 3)));
  }

  /** Writes the Widget's status as its controller would. */
  private static void status(Cluster cluster, String ns, String json) throws ApiException {
    DynamicKubernetesApi api = widgets(cluster, group(ns));
    DynamicKubernetesObject live = api.get(ns, "blue").throwsApiException().getObject();
    live.getRaw().add("status", JsonParser.parseString(json).getAsJsonObject());
    api.updateStatus(live, o -> o.getRaw().get("status")).throwsApiException();
  }

  @Test
  void inProgressCurrentAndFailedAreEachRecognisedByTheRuleOnly(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = group(ns);
    widgetCrd(cluster, ns);
    try {
      Manifest widget = blue(ns);
      cluster.orchestrator.apply(
          widget,
          OwnershipStamp.of(new ReleaseIdentity(ns, "app", "id-1"), 1, ContentHash.of(widget)));
      ResourceRef ref = widget.ref();
      CustomHealth rules = HealthRuleCompiler.compileInstalled(List.of(rule(group)));
      String prefix = "Widget " + ns + "/blue: health rule " + group + "/Widget: ";

      // the controller has not seen the spec yet: the rule's inProgress holds
      status(cluster, ns, "{\"observedGeneration\":0,\"phase\":\"Pending\"}");
      assertThat(
              cluster
                  .orchestrator
                  .awaitReady(
                      List.of(ref), ReadinessWait.of(Duration.ofSeconds(2)).withHealth(rules))
                  .describe())
          .isEqualTo(
              "not ready after 2s: "
                  + prefix
                  + "inProgress holds: has(self.status) && has(self.status.observedGeneration)"
                  + " && self.status.observedGeneration < self.metadata.generation; saw"
                  + " status.phase='Pending', status.readyMembers (absent), spec.members=3,"
                  + " status.observedGeneration=0, metadata.generation=1");

      // running with 2 of 3 members: the built-in rules call it current, the rule waits
      status(cluster, ns, "{\"observedGeneration\":1,\"phase\":\"Running\",\"readyMembers\":2}");
      assertThat(cluster.orchestrator.awaitReady(List.of(ref), Duration.ZERO))
          .isEqualTo(Readiness.ready());
      List<String> progress = new CopyOnWriteArrayList<>();
      CompletableFuture<Readiness> waiting =
          CompletableFuture.supplyAsync(
              () ->
                  cluster.orchestrator.awaitReady(
                      List.of(ref),
                      ReadinessWait.of(PATIENT)
                          .withHealth(rules)
                          .withProgress(p -> progress.add(p.describe()))));
      Await.until("a progress line", PATIENT, () -> progress.isEmpty() ? null : progress.get(0));
      assertThat(progress.get(0))
          .endsWith(
              prefix
                  + "current does not hold yet: has(self.status) && self.status.phase =="
                  + " 'Running' && self.status.readyMembers == self.spec.members; saw"
                  + " status.phase='Running', status.readyMembers=2, spec.members=3,"
                  + " status.observedGeneration=1, metadata.generation=1");
      status(cluster, ns, "{\"observedGeneration\":1,\"phase\":\"Running\",\"readyMembers\":3}");
      assertThat(waiting.get(1, TimeUnit.MINUTES)).isEqualTo(Readiness.ready());

      // failed: at once, naming the rule and what it saw
      status(cluster, ns, "{\"observedGeneration\":1,\"phase\":\"Failed\",\"readyMembers\":0}");
      assertThat(
              cluster.orchestrator.awaitReady(
                  List.of(ref), ReadinessWait.of(PATIENT).withHealth(rules)))
          .isEqualTo(
              Readiness.failed(
                  ref,
                  prefix
                      + "failed holds: has(self.status) && self.status.phase == 'Failed'; saw"
                      + " status.phase='Failed', status.readyMembers=0, spec.members=3,"
                      + " status.observedGeneration=1, metadata.generation=1"));
    } finally {
      deleteCrd(cluster, ns);
    }
  }

  @Test
  void aCastWithTheRuleInItsOptionsFailsNamingTheRule(ControlPlane plane, TestNamespace tns)
      throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    String group = group(ns);
    widgetCrd(cluster, ns);
    try {
      ReleaseController releases = cluster.controller().build();
      Payloads payloads = Payloads.of(blue(ns));
      ReleaseSpec spec = ReleaseSpec.of(ns, "app", payloads);
      ReleaseSpec ruled =
          spec.withOptions(
              spec.options().withHealthRules(List.of(rule(group))).withTimeout(PATIENT));
      CompletableFuture<Object> cast =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return releases.cast(ruled, payloads);
                } catch (CastFailedException e) {
                  return e;
                }
              });
      Await.until(
          "the Widget written",
          PATIENT,
          () -> widgets(cluster, group).get(ns, "blue").isSuccess() ? Boolean.TRUE : null);
      status(cluster, ns, "{\"observedGeneration\":1,\"phase\":\"Failed\",\"readyMembers\":1}");

      assertThat(cast.get(2, TimeUnit.MINUTES))
          .isInstanceOfSatisfying(
              CastFailedException.class,
              e -> {
                assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
                assertThat(e.result().release().failure())
                    .isEqualTo(
                        "verify failed: "
                            + group
                            + "/Widget/"
                            + ns
                            + "/blue is not ready: Widget "
                            + ns
                            + "/blue: health rule "
                            + group
                            + "/Widget: failed holds: has(self.status) && self.status.phase =="
                            + " 'Failed'; saw status.phase='Failed', status.readyMembers=1,"
                            + " spec.members=3, status.observedGeneration=1,"
                            + " metadata.generation=1");
              });
    } finally {
      deleteCrd(cluster, ns);
    }
  }
}
