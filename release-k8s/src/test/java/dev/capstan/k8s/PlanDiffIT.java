package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.plan.PlannedChange;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.util.PatchUtils;
import java.util.Base64;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * Field-level diffs on the real control plane: the "after" is a server-side apply dry run, asked
 * only for objects the plan changes; fields another manager owns are not shown as Capstan's.
 */
@ControlPlaneTest
class PlanDiffIT {
  private static final String PASSWORD = "hunter2-S3CR3T";

  private static Payloads payloads(String ns, String image, String password) {
    return Payloads.builder()
        .configMap(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")))
        .secret(SecretSpec.of(ns, "db", Map.of("password", password, "user", "app")))
        .service(
            ServiceSpec.builder(ns, "web")
                .image(image)
                .replicas(2)
                .port("http", 8080)
                .env("MODE", "prod")
                .build())
        .build();
  }

  @Test
  void aPlanThatChangesNothingMakesNoDryRunRequest(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads v1 = payloads(ns, "registry.example/web:1.0", "old-password");
    controller.cast(ReleaseSpec.of(ns, "app", v1), v1);

    cluster.requests().reset();
    Plan plain = controller.plan(ReleaseSpec.of(ns, "app", v1));
    SortedMap<String, Long> planRequests = cluster.requests().counts();
    cluster.requests().reset();
    Plan diffed = controller.planWithDiff(ReleaseSpec.of(ns, "app", v1), v1);

    assertThat(diffed.changesNothing()).isTrue();
    assertThat(diffed).isEqualTo(plain);
    assertThat(cluster.requests().counts()).isEqualTo(planRequests);
    assertThat(planRequests.keySet()).noneMatch(k -> k.startsWith("DRYRUN-"));
  }

  @Test
  void theDiffShowsWhatCapstansApplyWouldChangeAndNothingOfAnotherManager(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads v1 = payloads(ns, "registry.example/web:1.0", "old-password");
    controller.cast(ReleaseSpec.of(ns, "app", v1), v1);
    // another manager annotates the Deployment (server-side apply, as `kubectl annotate
    // --server-side` would) and scales it (`kubectl scale`: an update under its own manager)
    annotateAs(cluster, "ops-tool", ns, "web", "ops.example.com/oncall", "team-a");
    cluster.mergePatchDeployment(ns, "web", "{\"spec\":{\"replicas\":5}}");
    Payloads v2 = payloads(ns, "registry.example/web:1.1", PASSWORD);

    cluster.requests().reset();
    Plan plan = controller.planWithDiff(ReleaseSpec.of(ns, "app", v2), v2);

    assertThat(diff(plan, "apps/Deployment/" + ns + "/web"))
        .isEqualTo(
            "[spec.replicas: 5 → 2, spec.template.spec.containers[name=web].image:"
                + " \"registry.example/web:1.0\" → \"registry.example/web:1.1\"]");
    assertThat(diff(plan, "Secret/" + ns + "/db")).isEqualTo("[data.password: (changed)]");
    assertThat(diff(plan, "ConfigMap/" + ns + "/settings")).isEqualTo("[]");
    assertThat(cluster.requests().counts())
        .containsEntry("DRYRUN-PATCH deployments", 1L)
        .containsEntry("DRYRUN-PATCH secrets", 1L)
        .doesNotContainKey("DRYRUN-PATCH configmaps")
        .doesNotContainKey("DRYRUN-PATCH services");
    assertThat(cluster.writes()).allSatisfy((k, v) -> assertThat(k).startsWith("DRYRUN-"));
    String text = PlanRenderer.text(plan);
    assertThat(text)
        .contains(
            "  ~ update     apps/Deployment/"
                + ns
                + "/web\n"
                + "      - spec.replicas: 5\n"
                + "      + spec.replicas: 2\n"
                + "      - spec.template.spec.containers[name=web].image:"
                + " \"registry.example/web:1.0\"\n"
                + "      + spec.template.spec.containers[name=web].image:"
                + " \"registry.example/web:1.1\"\n")
        .contains("  ~ update     Secret/" + ns + "/db\n      ~ data.password: (changed)\n")
        .doesNotContain("oncall");
    for (String out : new String[] {text, PlanRenderer.json(plan), plan.toString()}) {
      assertThat(out)
          .doesNotContain(PASSWORD)
          .doesNotContain(Base64.getEncoder().encodeToString(PASSWORD.getBytes(UTF_8)))
          .doesNotContain("old-password")
          .doesNotContain(Base64.getEncoder().encodeToString("old-password".getBytes(UTF_8)));
    }
  }

  private static String diff(Plan plan, String key) {
    return plan.changes().stream()
        .filter(c -> c.ref().key().equals(key))
        .map(PlannedChange::diff)
        .findFirst()
        .orElseThrow()
        .toString();
  }

  /** A server-side apply of one annotation on a Deployment under another field manager. */
  private static void annotateAs(
      Cluster cluster, String manager, String ns, String name, String key, String value)
      throws ApiException {
    String yaml =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: %s\n"
                .formatted(name, ns)
            + "  annotations:\n    %s: %s\n".formatted(key, value);
    PatchUtils.patch(
        V1Deployment.class,
        () ->
            cluster
                .apps
                .patchNamespacedDeployment(name, ns, new V1Patch(yaml))
                .fieldManager(manager)
                .force(true)
                .buildCall(null),
        V1Patch.PATCH_FORMAT_APPLY_YAML,
        cluster.client());
  }
}
