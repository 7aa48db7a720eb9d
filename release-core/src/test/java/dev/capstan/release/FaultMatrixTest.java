package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.obj;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.CapstanException;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.memory.SimulatedCrash;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Makes every port operation fail (and, separately, crash right after succeeding) at every call
 * index of an upgrade touching many kinds (typed specs and manifests: cluster-scoped RBAC, an
 * Ingress, a CronJob that is pruned, a CRD with a custom resource), then checks the invariants and
 * that a clean cast converges.
 */
class FaultMatrixTest {
  /** A CRD of the release and a custom resource of it. */
  static final String CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata: {name: widgets.example.com}
      spec:
        group: example.com
        scope: Namespaced
        names: {kind: Widget, plural: widgets}
        versions: [{name: v1, served: true, storage: true}]
      """;

  static String widget(String size) {
    return "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {size: "
        + size
        + "}}";
  }

  static String role(String verb) {
    return "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name:"
        + " 'app:reader'}, rules: [{apiGroups: [''], resources: [pods], verbs: ["
        + verb
        + "]}]}";
  }

  static final String INGRESS =
      "{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: web}, spec: {rules:"
          + " [{host: %s}]}}";

  static final String CRON =
      "{apiVersion: batch/v1, kind: CronJob, metadata: {name: nightly}, spec: {schedule: '0 3 * *"
          + " *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name:"
          + " n, image: 'tool:1'}]}}}}}}";

  /**
   * v1: a service, a secret, two configmaps, and manifests of several kinds: a cluster-scoped
   * ClusterRole, an Ingress, a CronJob, a CRD with a custom resource.
   */
  static final Payloads V1 =
      payloads(
          web("web:1"),
          creds("v1"),
          configMap("a", "1"),
          configMap("b", "1"),
          Fixtures.yaml(role("get")),
          Fixtures.yaml(INGRESS.formatted("v1.example.com")),
          Fixtures.yaml(CRON),
          Fixtures.yaml(CRD),
          Fixtures.yaml(widget("1")));

  /** v2: every kind changes, b and the CronJob are pruned, c is created. */
  static final Payloads V2 =
      payloads(
          web("web:2"),
          creds("v2"),
          configMap("a", "2"),
          configMap("c", "2"),
          Fixtures.yaml(role("list")),
          Fixtures.yaml(INGRESS.formatted("v2.example.com")),
          Fixtures.yaml(CRD),
          Fixtures.yaml(widget("2")));

  static final ConfigMapSpec BYSTANDER = configMap("bystander", "not ours");
  static final ConfigMapSpec FOREIGN = configMap("foreign", "another release's");

  enum Mode {
    FAIL,
    CRASH
  }

  /** Where a cast keeps its intent until it records its revision. */
  enum Intent {
    /** In its lease: the store keeps lease intents. */
    LEASE,
    /** As a {@code PENDING} revision: the store keeps no lease intents. */
    PENDING_RECORD
  }

  static Fixtures.Harness installed(Intent intent) {
    Fixtures.Harness h =
        intent == Intent.LEASE
            ? new Fixtures.Harness()
            : Fixtures.Harness.withoutLeaseIntents("me");
    h.cluster.put(BYSTANDER);
    h.cast("other", payloads(FOREIGN));
    h.cast("app", V1);
    h.clock.advance(Duration.ofSeconds(1)); // the upgrade takes its lease at an instant of its own
    h.cluster.clearOperations();
    return h;
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Intent intent : Intent.values()) {
      Fixtures.Harness dry = installed(intent);
      dry.cast("app", V2);
      Map<Operation, Integer> calls = dry.cluster.counts();
      for (Mode mode : Mode.values()) {
        for (Operation op : Operation.values()) {
          for (int n = 1; n <= calls.getOrDefault(op, 0); n++) {
            cases.add(Arguments.of(intent, mode, op, n));
          }
        }
      }
    }
    assertThat(cases).hasSizeGreaterThan(60);
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2} call {3}")
  @MethodSource("cases")
  void upgradeSurvivesAFaultAtEveryCall(Intent intent, Mode mode, Operation op, int n) {
    Fixtures.Harness h = installed(intent);
    if (mode == Mode.FAIL) {
      h.cluster.faults().failOn(op, n);
    } else {
      h.cluster.faults().crashAfter(op, n);
    }

    try {
      h.cast("app", V2);
    } catch (CapstanException | SimulatedCrash expected) {
      // the invariants below hold whatever happened
    }
    h.cluster.faults().clear();

    Release latest = h.controller.get(NS, "app").orElseThrow();
    assertRecordConsistent(h, latest, mode);
    assertUnownedUntouched(h);

    h.clock.advance(Duration.ofMinutes(5)); // a crashed or unreleased lease lapses
    CastResult clean = h.cast("app", V2);

    assertThat(clean.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertConverged(h, clean.release());
    assertUnownedUntouched(h);
  }

  private static void assertRecordConsistent(Fixtures.Harness h, Release latest, Mode mode) {
    Set<ResourceRef> stampedByApp = stampedBy(h, latest);
    Set<ResourceRef> owned =
        latest.owns().stream().map(OwnedResource::ref).collect(Collectors.toSet());
    // no object carries the release's stamp without the record owning it, or the lease the
    // crashed cast left behind naming it
    Set<ResourceRef> named = new HashSet<>(owned);
    named.addAll(intendedObjects(h));
    assertThat(named).containsAll(stampedByApp);
    switch (latest.status()) {
      case DEPLOYED -> {
        if (latest.revision() == 2) {
          assertConverged(h, latest);
        } else {
          assertThat(latest.owns()).isEqualTo(Fixtures.owns(latest, V1));
        }
      }
      case FAILED -> {
        assertThat(latest.revision()).isEqualTo(2);
        assertThat(latest.failure()).isNotBlank();
      }
      case PENDING -> {
        // only a crash (or a failed failure-record save) leaves the intent log behind
        assertThat(latest.revision()).isEqualTo(2);
        assertThat(owned).containsAll(V1.refs());
      }
      default ->
          throw new AssertionError("unexpected status " + latest.status() + " after " + mode);
    }
  }

  private static void assertConverged(Fixtures.Harness h, Release deployed) {
    List<OwnedResource> owns = Fixtures.owns(deployed, V2);
    assertThat(deployed.owns()).isEqualTo(owns);
    List<ResourceRef> appObjects =
        h.cluster.objects().stream()
            .filter(r -> !r.equals(BYSTANDER.ref()) && !r.equals(FOREIGN.ref()))
            .toList();
    assertThat(appObjects).containsExactlyElementsOf(V2.refs());
    for (ResourceSpec spec : V2.specs()) {
      assertThat(h.cluster.object(spec.ref())).contains(Fixtures.written(deployed, V2, spec.ref()));
      OwnershipStamp stamp = h.cluster.stamp(spec.ref()).orElseThrow();
      assertThat(stamp.ownedBy(deployed.identity())).isTrue();
      assertThat(new OwnedResource(spec.ref(), stamp.contentHash())).isIn(owns);
    }
  }

  private static void assertUnownedUntouched(Fixtures.Harness h) {
    assertThat(h.cluster.object(BYSTANDER.ref())).contains(obj(BYSTANDER));
    assertThat(h.cluster.stamp(BYSTANDER.ref())).isEmpty();
    assertThat(h.cluster.object(FOREIGN.ref())).contains(obj(FOREIGN));
    assertThat(h.cluster.stamp(FOREIGN.ref()).orElseThrow().owner().name()).isEqualTo("other");
  }

  /** The objects the lease of the release names as its cast's, if it names a cast. */
  private static Set<ResourceRef> intendedObjects(Fixtures.Harness h) {
    Set<ResourceRef> named = new HashSet<>();
    h.cluster
        .leaseIntent(NS, "app")
        .ifPresent(
            text -> {
              try {
                for (JsonNode key : new ObjectMapper().readTree(text).path("objects")) {
                  named.add(ResourceRef.parse(key.asText()));
                }
              } catch (java.io.IOException e) {
                throw new AssertionError("the lease intent is not JSON: " + text, e);
              }
            });
    return named;
  }

  private static Set<ResourceRef> stampedBy(Fixtures.Harness h, Release release) {
    return h.cluster.objects().stream()
        .filter(r -> h.cluster.stamp(r).map(s -> s.ownedBy(release.identity())).orElse(false))
        .collect(Collectors.toSet());
  }
}
