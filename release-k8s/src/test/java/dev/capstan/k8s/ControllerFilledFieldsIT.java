package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fields another manager fills in, as a controller does, on the real control plane: a field Capstan
 * applied empty (a webhook's Secret shipped with {@code data: {}}, a CA bundle ConfigMap) or did
 * not apply at all (a Secret without {@code data}) is the other manager's, and a re-cast writes
 * nothing; a value Capstan applied that another manager changed is still drift, and is repaired.
 * The writers are other field managers writing with {@code Update} (a merge patch, as client-go's
 * {@code Update} and {@code Patch} record it) and with {@code Apply} (server-side apply).
 */
@ControlPlaneTest
class ControllerFilledFieldsIT {

  private static Map<String, Object> object(String json) {
    return JsonTrees.toJava(JsonParser.parseString(json).getAsJsonObject());
  }

  private static Payloads payloads(String ns) {
    return Payloads.builder()
        .namespace(ns)
        // what a webhook's install manifest ships: its controller writes the certificate later
        .manifest(
            object(
                "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"webhook-tls\"},"
                    + "\"type\":\"Opaque\",\"data\":{}}"))
        .manifest(
            object(
                "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"webhook-ca\"},"
                    + "\"type\":\"Opaque\"}"))
        .manifest(
            object(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ca-bundle\"},"
                    + "\"data\":{}}"))
        // and values of the release's own, which stay Capstan's
        .manifest(
            object(
                "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"creds\"},"
                    + "\"type\":\"Opaque\",\"stringData\":{\"token\":\"t1\"}}"))
        .manifest(
            object(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"settings\"},"
                    + "\"data\":{\"color\":\"blue\"}}"))
        .build();
  }

  @Test
  void fieldsAControllerFillsAreNoDriftWhileValuesCapstanAppliedAndAnotherChangedAreRepaired(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    Payloads payloads = payloads(ns);
    ReleaseSpec spec = ReleaseSpec.of(ns, "webhook", payloads);
    releases.cast(spec, payloads);

    // a controller fills in what the manifests left empty, with Update and with Apply
    mergePatchSecret(
        cluster, "cert-controller", ns, "webhook-tls", Map.of("tls.crt", "CERT", "tls.key", "KEY"));
    applySecret(cluster, "ca-injector", ns, "webhook-ca", Map.of("ca.crt", "CA"), false);
    mergePatchConfigMap(cluster, "cert-controller", ns, "ca-bundle", Map.of("ca.crt", "CA"));

    cluster.requests().reset();
    Plan plan = releases.plan(spec, payloads);
    assertThat(plan.changes())
        .filteredOn(c -> c.action() != Action.REFERENCE)
        .extracting(PlannedChange::action)
        .containsOnly(Action.UNCHANGED)
        .hasSize(5);
    // the no-op plan: the record read (which proves the release's namespace) and one LIST per
    // kind, nothing else
    assertThat(cluster.requests().counts()).containsOnlyKeys("LIST secrets", "LIST configmaps");

    cluster.requests().reset();
    releases.cast(spec, payloads);
    assertThat(cluster.writes())
        .as("the re-cast writes no object (an apply is a PATCH)")
        .doesNotContainKeys("PATCH secrets", "PATCH configmaps");
    assertThat(secretData(cluster, ns, "webhook-tls")).containsOnlyKeys("tls.crt", "tls.key");
    assertThat(secretData(cluster, ns, "webhook-ca")).containsOnlyKeys("ca.crt");
    assertThat(cluster.core.readNamespacedConfigMap("ca-bundle", ns).execute().getData())
        .containsExactlyEntriesOf(Map.of("ca.crt", "CA"));

    // another manager changes values Capstan applied, with Update and with Apply: drift
    mergePatchConfigMap(cluster, "kubectl-edit", ns, "settings", Map.of("color", "red"));
    applySecret(cluster, "ops-tool", ns, "creds", Map.of("token", "t2"), true);

    Plan drifted = releases.plan(spec, payloads);
    assertThat(drifted.changes())
        .filteredOn(c -> c.action() == Action.REPAIR)
        .extracting(c -> c.ref().name() + ": " + c.reason())
        .containsExactlyInAnyOrder(
            "creds: drift: field data.token set by ops-tool",
            "settings: drift: field data.color set by kubectl-edit");
    assertThat(drifted.changes())
        .filteredOn(c -> c.action() != Action.REFERENCE && c.action() != Action.REPAIR)
        .extracting(PlannedChange::action)
        .containsOnly(Action.UNCHANGED);

    cluster.requests().reset();
    releases.cast(spec, payloads);
    assertThat(cluster.writes())
        .containsEntry("PATCH secrets", 1L)
        .containsEntry("PATCH configmaps", 1L);
    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsExactlyEntriesOf(Map.of("color", "blue"));
    assertThat(secretData(cluster, ns, "creds")).containsExactlyEntriesOf(Map.of("token", "t1"));
    // the repair took back Capstan's values only: what the controllers filled is still theirs
    assertThat(secretData(cluster, ns, "webhook-tls")).containsOnlyKeys("tls.crt", "tls.key");

    // and after the repair, nothing drifts
    assertThat(releases.plan(spec, payloads).changesNothing()).isTrue();
  }

  private static Map<String, String> secretData(Cluster cluster, String ns, String name)
      throws ApiException {
    V1Secret s = cluster.core.readNamespacedSecret(name, ns).execute();
    Map<String, String> out = new LinkedHashMap<>();
    if (s.getData() != null) {
      s.getData().forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
    }
    return out;
  }

  /** A JSON merge patch of a Secret's data: an {@code Update} of the field manager. */
  private static void mergePatchSecret(
      Cluster cluster, String manager, String ns, String name, Map<String, String> data)
      throws ApiException {
    PatchUtils.patch(
        V1Secret.class,
        () ->
            cluster
                .core
                .patchNamespacedSecret(name, ns, new V1Patch(dataPatch(data, true)))
                .fieldManager(manager)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.client());
  }

  private static void mergePatchConfigMap(
      Cluster cluster, String manager, String ns, String name, Map<String, String> data)
      throws ApiException {
    PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            cluster
                .core
                .patchNamespacedConfigMap(name, ns, new V1Patch(dataPatch(data, false)))
                .fieldManager(manager)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.client());
  }

  /** A server-side apply of a Secret's data: an {@code Apply} of the field manager. */
  private static void applySecret(
      Cluster cluster,
      String manager,
      String ns,
      String name,
      Map<String, String> data,
      boolean force)
      throws ApiException {
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\""
            + name
            + "\",\"namespace\":\""
            + ns
            + "\"},"
            + dataPatch(data, true).substring(1);
    PatchUtils.patch(
        V1Secret.class,
        () ->
            cluster
                .core
                .patchNamespacedSecret(name, ns, new V1Patch(body))
                .fieldManager(manager)
                .force(force)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        cluster.client());
  }

  /** {@code {"data":{...}}}, values base64-encoded for a Secret. */
  private static String dataPatch(Map<String, String> data, boolean base64) {
    List<String> entries =
        data.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(
                e ->
                    "\""
                        + e.getKey()
                        + "\":\""
                        + (base64
                            ? Base64.getEncoder()
                                .encodeToString(e.getValue().getBytes(StandardCharsets.UTF_8))
                            : e.getValue())
                        + "\"")
            .toList();
    return "{\"data\":{" + String.join(",", entries) + "}}";
  }
}
