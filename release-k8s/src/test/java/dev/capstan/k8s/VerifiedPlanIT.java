package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.port.Precondition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * Verified plans on the real API server: with {@code verifyOnServer}, a 5-object release whose
 * third object the API server refuses (a Service with port 70000, 422) writes nothing, and the plan
 * and the refusal name it with the server's message; without, the two objects before it are
 * written. The requests a verified cast costs over an unverified one are counted exactly (one
 * {@code DRYRUN-PATCH} per written object, nothing else); its time is printed, not asserted
 * (docs/benchmarks.md). What server-side apply's schema check refuses (HTTP 500, no reason) is a
 * conflict too; an integer the API server would store as 0 is refused before any write.
 */
@ControlPlaneTest
class VerifiedPlanIT {

  private static Manifest configMap(String ns, String name, int wave) {
    return Manifest.of(
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "ConfigMap",
            "metadata",
            Map.of(
                "name",
                name,
                "namespace",
                ns,
                "annotations",
                Map.of("capstan.dev/wave", "" + wave)),
            "data",
            Map.of("k", "v")));
  }

  /**
   * ConfigMaps a and b, the Service (wave 0), ConfigMaps d and e (wave 1): the Service is the third
   * object in apply order.
   */
  private static Payloads five(String ns, int port) {
    Manifest service =
        Manifest.of(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Service",
                "metadata",
                Map.of("name", "web", "namespace", ns),
                "spec",
                Map.of(
                    "selector",
                    Map.of("app", "web"),
                    "ports",
                    List.of(Map.of("name", "http", "port", port, "targetPort", 8080)))));
    return Payloads.of(
        configMap(ns, "a", 0),
        configMap(ns, "b", 0),
        service,
        configMap(ns, "d", 1),
        configMap(ns, "e", 1));
  }

  private static ReleaseSpec spec(String ns, String name, Payloads p, boolean verify) {
    ReleaseSpec spec = ReleaseSpec.of(ns, name, p);
    return spec.withOptions(spec.options().withVerifyOnServer(verify));
  }

  @Test
  void aRefusalOfTheThirdObjectWritesNothingAndThePlanNamesIt(ControlPlane plane, TestNamespace t) {
    Cluster cluster = new Cluster(plane);
    ReleaseController controller = cluster.controller().build();
    String ns = t.name();
    Payloads p = five(ns, 70000);
    String service = "Service/" + ns + "/web";

    Plan plan = controller.plan(spec(ns, "web", p, true), p);
    assertThat(plan.changes())
        .extracting(c -> c.action() + " " + c.ref().key())
        .containsExactly(
            "REFERENCE Namespace//" + ns,
            "CREATE ConfigMap/" + ns + "/a",
            "CREATE ConfigMap/" + ns + "/b",
            "CONFLICT " + service,
            "CREATE ConfigMap/" + ns + "/d",
            "CREATE ConfigMap/" + ns + "/e");
    String reason =
        "refused by the API server's dry run: dry-run apply Service "
            + ns
            + "/web failed (HTTP 422): Service \"web\" is invalid: spec.ports[0].port: Invalid"
            + " value: 70000: must be between 1 and 65535, inclusive";
    assertThat(plan.conflicts()).extracting(PlannedChange::reason).containsExactly(reason);
    assertThat(PlanRenderer.text(plan)).contains(service + "  (" + reason + ")");

    cluster.requests().reset();
    assertThatThrownBy(() -> controller.cast(spec(ns, "web", p, true), p))
        .isInstanceOfSatisfying(
            ReleaseConflictException.class,
            e -> assertThat(e.getMessage()).isEqualTo(conflicts(ns + "/web", service, reason)));
    SortedMap<String, Long> counts = cluster.requests().counts();
    // every object dry-run, in the release's identity, and not one write: no object, no record
    assertThat(counts)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "LIST configmaps", 1L,
                "LIST services", 1L,
                "LIST secrets", 1L, // the records under the lease
                "CREATE leases", 1L,
                "DELETE leases", 1L,
                "DRYRUN-PATCH configmaps", 4L,
                "DRYRUN-PATCH services", 1L));
    assertThat(cluster.requests().log()).filteredOn(r -> r.startsWith("DRYRUN-")).hasSize(5);
    assertThat(configMapNames(cluster, ns)).isEmpty();
  }

  @Test
  void withoutVerificationTheObjectsBeforeTheRefusalAreWritten(
      ControlPlane plane, TestNamespace t) {
    Cluster cluster = new Cluster(plane);
    ReleaseController controller = cluster.controller().build();
    String ns = t.name();
    Payloads p = five(ns, 70000);

    cluster.requests().reset();
    assertThatThrownBy(() -> controller.cast(spec(ns, "web", p, false), p))
        .isInstanceOf(CastFailedException.class)
        .hasMessageContaining("spec.ports[0].port: Invalid value: 70000");

    SortedMap<String, Long> counts = cluster.requests().counts();
    assertThat(counts).doesNotContainKey("DRYRUN-PATCH configmaps");
    assertThat(counts).containsEntry("PATCH configmaps", 2L).containsEntry("PATCH services", 1L);
    assertThat(configMapNames(cluster, ns)).containsExactly("a", "b");
  }

  private static Payloads deployment(String ns, Map<String, Object> spec) {
    Map<String, Object> full = new LinkedHashMap<>(spec);
    full.put("selector", Map.of("matchLabels", Map.of("app", "web")));
    full.put(
        "template",
        Map.of(
            "metadata",
            Map.of("labels", Map.of("app", "web")),
            "spec",
            Map.of("containers", List.of(Map.of("name", "web", "image", "nginx")))));
    return Payloads.of(
        Manifest.of(
            Map.of(
                "apiVersion",
                "apps/v1",
                "kind",
                "Deployment",
                "metadata",
                Map.of("name", "web", "namespace", ns),
                "spec",
                full)));
  }

  /**
   * Server-side apply checks the object against its kind's schema before validation, and answers a
   * field the schema does not declare or a value of the wrong type with HTTP 500 and no reason: a
   * refusal of the object, as a 422 is. An integer beyond 64 bits, which the API server would store
   * as replicas 0 with HTTP 201, is refused before the cast's first request.
   */
  @Test
  void whatTheSchemaRefusesIsAConflictAndAnIntegerBeyondSixtyFourBitsIsRefusedBeforeAnyWrite(
      ControlPlane plane, TestNamespace t) throws Exception {
    Cluster cluster = new Cluster(plane);
    ReleaseController controller = cluster.controller().build();
    String ns = t.name();
    String web = "apps/Deployment/" + ns + "/web";
    String typed = "failed to create typed patch object (" + ns + "/web; apps/v1, Kind=Deployment)";
    Map<Map<String, Object>, String> refused = new LinkedHashMap<>();
    refused.put(
        Map.of("replicas", 1, "replicaz", 3),
        typed + ": .spec.replicaz: field not declared in schema");
    refused.put(
        Map.of("replicas", "two"),
        typed + ": .spec.replicas: expected numeric (int or float), got string");
    refused.put(
        Map.of("replicas", new java.math.BigDecimal("1.5")),
        "failed to convert new object ("
            + ns
            + "/web; apps/v1, Kind=Deployment) to proper version: unable to convert unstructured"
            + " object to apps/v1, Kind=Deployment: cannot convert float64 to int32");

    for (Map.Entry<Map<String, Object>, String> e : refused.entrySet()) {
      Payloads p = deployment(ns, e.getKey());
      String reason =
          "refused by the API server's dry run: dry-run apply Deployment "
              + ns
              + "/web failed (HTTP 500): "
              + e.getValue();

      Plan plan = controller.plan(spec(ns, "web", p, true), p);

      assertThat(plan.changes())
          .extracting(c -> c.action() + " " + c.ref().key())
          .containsExactly("REFERENCE Namespace//" + ns, "CONFLICT " + web);
      assertThat(plan.conflicts()).extracting(PlannedChange::reason).containsExactly(reason);
      assertThatThrownBy(() -> controller.cast(spec(ns, "web", p, true), p))
          .isInstanceOf(ReleaseConflictException.class)
          .hasMessage(conflicts(ns + "/web", web, reason));
    }

    Payloads huge =
        deployment(
            ns, Map.of("replicas", new java.math.BigInteger("123456789012345678901234567890")));
    cluster.requests().reset();
    assertThatThrownBy(() -> controller.cast(spec(ns, "web", huge, true), huge))
        .isInstanceOfSatisfying(
            InvalidReleaseException.class,
            e ->
                assertThat(e.problems())
                    .containsExactly(
                        "Deployment "
                            + ns
                            + "/web: spec.replicas must be an integer of at most 64 bits (from"
                            + " -9223372036854775808 to 9223372036854775807): the API server reads"
                            + " a larger one as an inexact float, which an integer field stores as"
                            + " 0 or a wrapped value; quote it for a string:"
                            + " 123456789012345678901234567890"));
    assertThat(cluster.requests().counts()).as("refused before its first request").isEmpty();
    assertThat(cluster.apps.listNamespacedDeployment(ns).execute().getItems()).isEmpty();
  }

  /**
   * An integer within 64 bits but beyond an {@code int32} field's range: the API server converts
   * {@code replicas: 4294967298} to 2 and answers 201, no error (shown here by the adapter's own
   * write, behind the engine's back). Every cast refuses it before its first request, verified or
   * not, as client-java's model types the field {@code int32}; and a verified plan's dry run, asked
   * alone, reads the same from the server's answer, for fields a model lacks.
   */
  @Test
  void anInt32FieldTheServerWouldWrapIsRefusedBeforeAnyRequestVerifiedOrNot(
      ControlPlane plane, TestNamespace t) throws Exception {
    Cluster cluster = new Cluster(plane);
    ReleaseController controller = cluster.controller().build();
    String ns = t.name();
    Payloads p = deployment(ns, Map.of("replicas", 4294967298L));
    String problem =
        "Deployment "
            + ns
            + "/web: spec.replicas must be from -2147483648 to 2147483647: its field is a 32-bit"
            + " integer, which keeps the low 32 bits of a larger integer without an error:"
            + " 4294967298";

    for (boolean verify : List.of(true, false)) {
      cluster.requests().reset();
      assertThatThrownBy(() -> controller.cast(spec(ns, "web", p, verify), p))
          .as("verified: " + verify)
          .isInstanceOfSatisfying(
              InvalidReleaseException.class,
              e -> assertThat(e.problems()).containsExactly(problem));
      assertThat(cluster.requests().counts()).as("refused before its first request").isEmpty();
    }
    assertThatThrownBy(() -> controller.planWithDiff(spec(ns, "web", p, true), p))
        .as("the reviewed plan, as release plan makes it")
        .isInstanceOfSatisfying(
            InvalidReleaseException.class, e -> assertThat(e.problems()).containsExactly(problem));
    assertThat(cluster.apps.listNamespacedDeployment(ns).execute().getItems()).isEmpty();
    assertThat(cluster.store.records(ns, "web")).isEmpty();

    Manifest web = p.objects().get(0);
    assertThat(cluster.orchestrator.verifyApply(web, null, Precondition.none()))
        .contains(
            "Deployment "
                + ns
                + "/web: spec.replicas must be a number its field stores as sent; the API"
                + " server's dry run stores 2 (a 32-bit integer field holds -2147483648 to"
                + " 2147483647 and keeps the low 32 bits of a larger integer without an error):"
                + " 4294967298");
    cluster.orchestrator.apply(web, null);
    assertThat(cluster.apps.readNamespacedDeployment("web", ns).execute().getSpec())
        .extracting(s -> s.getReplicas())
        .as("the API server's own answer to the write every cast refuses")
        .isEqualTo(2);
  }

  /**
   * A custom resource's integer fields are stored as JSON, never converted: a value beyond 32 bits
   * in an {@code int64} field is stored as sent, so the dry run's answer holds it unchanged and the
   * cast writes it, with no refusal of Capstan's own. A value beyond an {@code int32} field's
   * format is the API server's to judge, and versions differ: 1.37 refuses it itself (422, a
   * conflict quoting the server), 1.34 stores it as sent (the plan creates it, and the object holds
   * the number sent). Either way nothing is stored as another number.
   */
  @Test
  void aCustomResourcesIntegerFieldsAreJudgedByWhatTheServerStores(
      ControlPlane plane, TestNamespace t) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = t.name();
    String group = ns + ".int32.capstan.dev";
    Widgets.createCrd(
        cluster,
        group,
        ns,
        Duration.ofSeconds(60),
        """
        {"type":"object","properties":{"spec":{"type":"object","properties":{
          "small":{"type":"integer","format":"int32"},
          "large":{"type":"integer","format":"int64"}}}}}
        """);
    try {
      ReleaseController controller = cluster.controller().build();
      String key = group + "/Widget/" + ns + "/w";

      Payloads wrapped = widget(group, ns, 4294967298L, 4294967298L);
      Plan plan = controller.plan(spec(ns, "w", wrapped, true), wrapped);
      if (plan.applyable()) { // the server stores an int32 field's value as sent (1.34)
        assertThat(plan.changes())
            .extracting(c -> c.action() + " " + c.ref().key())
            .containsExactly("REFERENCE Namespace//" + ns, "CREATE " + key);
        controller.cast(spec(ns, "w", wrapped, true), wrapped);
        assertThat(Widgets.api(cluster, group).get(ns, "w").getObject().getRaw().get("spec"))
            .hasToString("{\"large\":4294967298,\"small\":4294967298}");
      } else { // the server refuses it itself (1.37)
        assertThat(plan.changes())
            .extracting(c -> c.action() + " " + c.ref().key())
            .containsExactly("REFERENCE Namespace//" + ns, "CONFLICT " + key);
        assertThat(plan.conflicts())
            .extracting(PlannedChange::reason)
            .containsExactly(
                "refused by the API server's dry run: dry-run apply Widget "
                    + ns
                    + "/w failed (HTTP 422): Widget."
                    + group
                    + " \"w\" is invalid: <nil>: Invalid value: \"\": Checked value must be of"
                    + " type integer with format int32 in spec.small");
      }

      Payloads valid = widget(group, ns, 2, 4294967298L);
      controller.cast(spec(ns, "w", valid, true), valid);
      assertThat(Widgets.api(cluster, group).get(ns, "w").getObject().getRaw().get("spec"))
          .hasToString("{\"large\":4294967298,\"small\":2}");
    } finally {
      Widgets.deleteCrd(cluster, group);
    }
  }

  private static Payloads widget(String group, String ns, long small, long large) {
    return Payloads.of(
        Manifest.of(
            Map.of(
                "apiVersion",
                group + "/v1",
                "kind",
                "Widget",
                "metadata",
                Map.of("name", "w", "namespace", ns),
                "spec",
                Map.of("small", small, "large", large))));
  }

  /**
   * The cost: the same valid 5-object release installed and then changed (one object), with and
   * without verification, in two releases. Requests exact; times printed.
   */
  @Test
  void aVerifiedCastCostsOneDryRunPerWrittenObject(ControlPlane plane, TestNamespace t) {
    Cluster cluster = new Cluster(plane);
    ReleaseController controller = cluster.controller().build();
    String ns = t.name();
    Map<String, String> report = new LinkedHashMap<>();
    // three rounds, each variant in turn, so that neither has the JVM's warm-up to itself
    for (int round = 1; round <= 3; round++) {
      for (boolean verify : List.of(false, true)) {
        String name = (verify ? "verified" : "plain") + "-" + round;
        Payloads p = renamed(five(ns, 80), name);
        cluster.requests().reset();
        long started = System.nanoTime();
        controller.cast(spec(ns, name, p, verify), p);
        Duration install = Duration.ofNanos(System.nanoTime() - started);
        SortedMap<String, Long> installCounts = cluster.requests().counts();

        Payloads changed = renamed(five(ns, 8080), name);
        cluster.requests().reset();
        started = System.nanoTime();
        Plan upgraded = controller.cast(spec(ns, name, changed, verify), changed).plan();
        Duration upgrade = Duration.ofNanos(System.nanoTime() - started);
        SortedMap<String, Long> upgradeCounts = cluster.requests().counts();
        assertThat(upgraded.changes(Action.UPDATE)).hasSize(1);

        cluster.requests().reset();
        started = System.nanoTime();
        controller.cast(spec(ns, name, changed, verify), changed);
        Duration noop = Duration.ofNanos(System.nanoTime() - started);
        SortedMap<String, Long> noopCounts = cluster.requests().counts();
        // an unchanged object is not sent: a no-op cast costs nothing more
        assertThat(noopCounts.keySet()).filteredOn(k -> k.startsWith("DRYRUN-")).isEmpty();

        assertThat(installCounts.getOrDefault("DRYRUN-PATCH configmaps", 0L))
            .isEqualTo(verify ? 4L : 0L);
        assertThat(installCounts.getOrDefault("DRYRUN-PATCH services", 0L))
            .isEqualTo(verify ? 1L : 0L);
        assertThat(upgradeCounts.getOrDefault("DRYRUN-PATCH services", 0L))
            .isEqualTo(verify ? 1L : 0L);
        assertThat(upgradeCounts.keySet())
            .filteredOn(k -> k.startsWith("DRYRUN-") && !k.equals("DRYRUN-PATCH services"))
            .isEmpty();
        assertThat(installCounts).containsEntry("PATCH configmaps", 4L);
        report.put(
            name,
            String.format(
                Locale.ROOT,
                "install: %d requests, %d ms; one object changed: %d requests, %d ms; no-op: %d"
                    + " requests, %d ms",
                total(installCounts),
                install.toMillis(),
                total(upgradeCounts),
                upgrade.toMillis(),
                total(noopCounts),
                noop.toMillis()));
      }
    }
    report.forEach((k, v) -> System.out.println("VerifiedPlanIT " + k + ": " + v));
  }

  /** The message of a cast refused for one conflict. */
  private static String conflicts(String release, String key, String reason) {
    return "release "
        + release
        + " has unresolved conflicts; nothing was written: "
        + key
        + "\n  - "
        + key
        + ": "
        + reason;
  }

  private static Payloads renamed(Payloads p, String release) {
    Payloads.Builder b = Payloads.builder();
    for (Manifest m : p.objects()) {
      b.add(m.with("metadata.name", release + "-" + m.name()));
    }
    return b.build();
  }

  private static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  private static List<String> configMapNames(Cluster cluster, String ns) {
    try {
      return cluster.core.listNamespacedConfigMap(ns).execute().getItems().stream()
          .map(c -> c.getMetadata().getName())
          .filter(n -> !n.equals("kube-root-ca.crt"))
          .sorted()
          .toList();
    } catch (io.kubernetes.client.openapi.ApiException e) {
      throw new AssertionError(e);
    }
  }
}
