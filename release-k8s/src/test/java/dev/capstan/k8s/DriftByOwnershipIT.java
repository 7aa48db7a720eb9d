package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.IgnoredField;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Scale;
import io.kubernetes.client.util.PatchUtils;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Drift by ownership on the real control plane: {@code kubectl scale} (the scale subresource) and a
 * JSON-patch {@code remove} are drift, named with who took the field, and the next cast repairs
 * each with one write; a drift ignore rule for {@code /spec/replicas} leaves an HPA-like writer's
 * value alone, through re-casts and upgrades, whether Capstan owned the field before or not.
 */
@ControlPlaneTest
class DriftByOwnershipIT {

  private static Map<String, Object> object(String json) {
    return JsonTrees.toJava(JsonParser.parseString(json).getAsJsonObject());
  }

  private static Map<String, Object> deployment(String name, int replicas, String image) {
    return object(
        ("{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'NAME'},"
                + "'spec':{'replicas':REPLICAS,'selector':{'matchLabels':{'app':'NAME'}},"
                + "'template':{'metadata':{'labels':{'app':'NAME'}},"
                + "'spec':{'containers':[{'name':'web','image':'IMAGE'}]}}}}")
            .replace('\'', '"')
            .replace("NAME", name)
            .replace("REPLICAS", Integer.toString(replicas))
            .replace("IMAGE", image));
  }

  private static Payloads payloads(String ns, String image) {
    return Payloads.builder()
        .namespace(ns)
        .manifest(deployment("web", 2, image))
        .manifest(
            object(
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                    + "\"metadata\":{\"name\":\"web-settings\"},"
                    + "\"data\":{\"color\":\"blue\",\"size\":\"m\"}}"))
        .build();
  }

  private static ReleaseSpec spec(String ns, Payloads payloads, DriftIgnore... rules) {
    ReleaseSpec spec = ReleaseSpec.of(ns, "web", payloads);
    return spec.withOptions(spec.options().withDriftIgnore(List.of(rules)));
  }

  /** {@code kubectl scale deploy NAME --replicas=N}: a merge patch of the scale subresource. */
  private static void scale(Cluster cluster, String manager, String ns, String name, int replicas)
      throws ApiException {
    PatchUtils.patch(
        V1Scale.class,
        () ->
            cluster
                .apps
                .patchNamespacedDeploymentScale(
                    name, ns, new V1Patch("{\"spec\":{\"replicas\":" + replicas + "}}"))
                .fieldManager(manager)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.client());
  }

  private static int replicas(Cluster cluster, String ns, String name) throws ApiException {
    return cluster.apps.readNamespacedDeployment(name, ns).execute().getSpec().getReplicas();
  }

  private static PlannedChange change(Plan plan, String key) {
    return plan.changes().stream().filter(c -> c.ref().key().equals(key)).findFirst().orElseThrow();
  }

  /** The object writes of the last operation: PATCHes (every apply is one). */
  private static Map<String, Long> patches(Cluster cluster) {
    Map<String, Long> out = new java.util.TreeMap<>(cluster.writes());
    out.keySet().removeIf(k -> !k.startsWith("PATCH "));
    return out;
  }

  @Test
  void kubectlScaleAndAJsonPatchRemoveAreDriftNamingWhoAndTheNextCastRepairsEachOnce(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    Payloads p = payloads(ns, "registry.example/web:1");
    releases.cast(spec(ns, p), p);

    scale(cluster, "kubectl", ns, "web", 5);
    // the Deployment controller writes the scaled Deployment's status for a while; the plan and
    // the cast that follow judge one object at rest, not a race with it
    Cluster.awaitDeploymentsCurrent(plane, ns, 1);
    PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            cluster
                .core
                .patchNamespacedConfigMap(
                    "web-settings",
                    ns,
                    new V1Patch("[{\"op\":\"remove\",\"path\":\"/data/color\"}]"))
                .fieldManager("kubectl-patch")
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_PATCH,
        cluster.client());

    cluster.requests().reset();
    Plan plan = releases.plan(spec(ns, p), p);
    assertThat(change(plan, "apps/Deployment/" + ns + "/web").reason())
        .isEqualTo("drift: field spec.replicas set by kubectl (scale subresource)");
    assertThat(change(plan, "ConfigMap/" + ns + "/web-settings").reason())
        .isEqualTo("drift: field data.color removed");
    // drift costs no request beyond the record's read and the observation
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("LIST secrets", 1L, "LIST deployments", 1L, "LIST configmaps", 1L));

    cluster.requests().reset();
    releases.cast(spec(ns, p), p);
    assertThat(patches(cluster))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("PATCH configmaps", 1L, "PATCH deployments", 1L));
    assertThat(replicas(cluster, ns, "web")).isEqualTo(2);
    assertThat(cluster.core.readNamespacedConfigMap("web-settings", ns).execute().getData())
        .containsExactlyInAnyOrderEntriesOf(Map.of("color", "blue", "size", "m"));

    cluster.requests().reset();
    assertThat(releases.plan(spec(ns, p), p).changesNothing()).isTrue();
    releases.cast(spec(ns, p), p);
    assertThat(patches(cluster)).isEmpty();
  }

  @Test
  void withARuleForReplicasAnHpaLikeWritersValueIsNeverWrittenOver(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    DriftIgnore replicas = DriftIgnore.paths("apps/Deployment", "/spec/replicas");
    Payloads v1 = payloads(ns, "registry.example/web:1");
    releases.cast(spec(ns, v1, replicas), v1);
    // the create wrote the manifest's value
    assertThat(replicas(cluster, ns, "web")).isEqualTo(2);

    scale(cluster, "hpa-like", ns, "web", 4);

    Plan plan = releases.plan(spec(ns, v1, replicas), v1);
    PlannedChange web = change(plan, "apps/Deployment/" + ns + "/web");
    assertThat(web.action()).isEqualTo(Action.UNCHANGED);
    assertThat(web.ignored())
        .containsExactly(
            new IgnoredField(
                "/spec/replicas", "/spec/replicas", "apps/Deployment: /spec/replicas", null));
    cluster.requests().reset();
    releases.cast(spec(ns, v1, replicas), v1);
    assertThat(patches(cluster)).isEmpty();
    assertThat(replicas(cluster, ns, "web")).isEqualTo(4);

    // an upgrade writes the Deployment without the field: one GET (Capstan holds no part of it
    // any more, nothing to give up) and the apply
    Payloads v2 = payloads(ns, "registry.example/web:2");
    cluster.requests().reset();
    releases.cast(spec(ns, v2, replicas), v2);
    assertThat(patches(cluster)).containsExactlyEntriesOf(Map.of("PATCH deployments", 1L));
    assertThat(cluster.requests().counts()).containsEntry("GET deployments", 1L);
    assertThat(replicas(cluster, ns, "web")).isEqualTo(4);
    assertThat(cluster.image(ns, "web")).isEqualTo("registry.example/web:2");
    assertThat(releases.plan(spec(ns, v2, replicas), v2).changesNothing()).isTrue();
  }

  @Test
  void aRuleAddedOverAFieldCapstanOwnedGivesItUpKeepingItsValue(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    Payloads p = payloads(ns, "registry.example/web:1");
    releases.cast(spec(ns, p), p);
    assertThat(cluster.fieldsOwnedBy("capstan", "apps", "v1", "deployments", ns, "web"))
        .contains("f:replicas");
    DriftIgnore replicas = DriftIgnore.paths("apps/Deployment", "/spec/replicas").forName("web");

    cluster.requests().reset();
    Plan plan = releases.cast(spec(ns, p, replicas), p).plan();

    // the content hash leaves the field out: one update, which first gives the field up (a merge
    // patch of the managed fields), so that the apply without it does not remove it
    assertThat(change(plan, "apps/Deployment/" + ns + "/web").action()).isEqualTo(Action.UPDATE);
    assertThat(patches(cluster)).containsExactlyEntriesOf(Map.of("PATCH deployments", 2L));
    assertThat(replicas(cluster, ns, "web")).isEqualTo(2);
    assertThat(cluster.fieldsOwnedBy("capstan", "apps", "v1", "deployments", ns, "web"))
        .doesNotContain("f:replicas")
        .contains("f:template");

    scale(cluster, "hpa-like", ns, "web", 6);
    cluster.requests().reset();
    releases.cast(spec(ns, p, replicas), p);
    assertThat(patches(cluster)).isEmpty();
    assertThat(replicas(cluster, ns, "web")).isEqualTo(6);
  }

  @Test
  void aRuleOfManagersTrustsTheHpaLikeWriterAndNoOther(ControlPlane plane, TestNamespace tns)
      throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller("caster");
    DriftIgnore trusted = DriftIgnore.managers("apps/Deployment", "hpa-like");
    Payloads p = payloads(ns, "registry.example/web:1");
    releases.cast(spec(ns, p, trusted), p);

    scale(cluster, "hpa-like", ns, "web", 3);
    PlannedChange web =
        change(releases.plan(spec(ns, p, trusted), p), "apps/Deployment/" + ns + "/web");
    assertThat(web.action()).isEqualTo(Action.UNCHANGED);
    assertThat(web.ignored())
        .containsExactly(
            new IgnoredField(
                "spec.replicas",
                "/spec/replicas",
                "apps/Deployment: managers hpa-like",
                "hpa-like"));
    cluster.requests().reset();
    releases.cast(spec(ns, p, trusted), p);
    assertThat(patches(cluster)).isEmpty();
    assertThat(replicas(cluster, ns, "web")).isEqualTo(3);

    scale(cluster, "kubectl", ns, "web", 7);
    assertThat(
            change(releases.plan(spec(ns, p, trusted), p), "apps/Deployment/" + ns + "/web")
                .reason())
        .isEqualTo("drift: field spec.replicas set by kubectl (scale subresource)");
  }
}
