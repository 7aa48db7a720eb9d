package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretHashKey;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * On the real control plane: a ConfigMap change restarts exactly the Deployments of the release
 * that read it (a new ReplicaSet for those, none for the others); a no-op cast rolls nothing out.
 */
@ControlPlaneTest
class ConfigRolloutIT {

  private static Payloads release(String ns, String level) {
    Map<String, Object> reader =
        Map.of(
            "apiVersion",
            "apps/v1",
            "kind",
            "Deployment",
            "metadata",
            Map.of("name", "reader", "namespace", ns),
            "spec",
            Map.of(
                "replicas",
                1,
                "selector",
                Map.of("matchLabels", Map.of("app", "reader")),
                "template",
                Map.of(
                    "metadata",
                    Map.of("labels", Map.of("app", "reader")),
                    "spec",
                    Map.of(
                        "containers",
                        List.of(Map.of("name", "c", "image", "registry.example/reader:1")),
                        "volumes",
                        List.of(
                            Map.of("name", "cfg", "configMap", Map.of("name", "web-config")))))));
    return Payloads.builder()
        .configMap(ConfigMapSpec.of(ns, "web-config", Map.of("level", level)))
        .secret(SecretSpec.of(ns, "creds", Map.of("password", "hunter2")))
        .service(
            ServiceSpec.builder(ns, "web")
                .image("registry.example/web:1")
                .envFromConfigMap("web-config")
                .build())
        .service(
            ServiceSpec.builder(ns, "worker")
                .image("registry.example/worker:1")
                .envFromSecret("creds")
                .build())
        .service(ServiceSpec.builder(ns, "other").image("registry.example/other:1").build())
        .manifest(reader)
        .build();
  }

  private static ReleaseSpec spec(String ns, Payloads payloads) {
    return ReleaseSpec.of(ns, "app", payloads);
  }

  private static List<String> changes(Plan plan) {
    return plan.changes().stream()
        .filter(c -> c.action() != Action.UNCHANGED && c.action() != Action.REFERENCE)
        .map(ConfigRolloutIT::line)
        .toList();
  }

  private static String line(PlannedChange c) {
    return c.action().id()
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  /** The number of ReplicaSets of each Deployment. */
  private static Map<String, Integer> replicaSets(Cluster cluster, String ns) throws ApiException {
    Map<String, Integer> counts = new TreeMap<>();
    for (V1ReplicaSet rs : cluster.apps.listNamespacedReplicaSet(ns).execute().getItems()) {
      for (V1OwnerReference owner :
          Objects.requireNonNullElse(
              rs.getMetadata().getOwnerReferences(), List.<V1OwnerReference>of())) {
        counts.merge(owner.getName(), 1, Integer::sum);
      }
    }
    return counts;
  }

  @Test
  void aConfigMapChangeRestartsExactlyItsReadersAndANoOpCastRollsNothingOut(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads v1 = release(ns, "info");
    controller.cast(spec(ns, v1), v1);
    Map<String, Integer> before = replicaSets(cluster, ns);
    assertThat(before).isEqualTo(Map.of("other", 1, "reader", 1, "web", 1, "worker", 1));

    CastResult noOp = controller.cast(spec(ns, v1), v1);

    assertThat(noOp.plan().changesNothing()).isTrue();
    assertThat(replicaSets(cluster, ns)).isEqualTo(before);

    Payloads v2 = release(ns, "debug");
    CastResult changed = controller.cast(spec(ns, v2), v2);

    assertThat(changes(changed.plan()))
        .containsExactly(
            "update ConfigMap/" + ns + "/web-config",
            "update apps/Deployment/"
                + ns
                + "/reader (config changed: ConfigMap/"
                + ns
                + "/web-config)",
            "update apps/Deployment/"
                + ns
                + "/web (config changed: ConfigMap/"
                + ns
                + "/web-config)");
    assertThat(replicaSets(cluster, ns))
        .isEqualTo(Map.of("other", 1, "reader", 2, "web", 2, "worker", 1));
    assertThat(
            cluster
                .apps
                .readNamespacedDeployment("web", ns)
                .execute()
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getAnnotations())
        .containsKey("capstan.dev/config-hash");
    assertThat(controller.cast(spec(ns, v2), v2).plan().changesNothing()).isTrue();
    assertThat(replicaSets(cluster, ns))
        .isEqualTo(Map.of("other", 1, "reader", 2, "web", 2, "worker", 1));
  }

  @Test
  void theSecretsContentHashIsKeyedByTheRecordsKeyAndNoCastDriftsIt(
      ControlPlane plane, TestNamespace tns) throws ApiException {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads v1 = release(ns, "info");

    CastResult first = controller.cast(spec(ns, v1), v1);

    String annotation =
        Objects.requireNonNull(
            cluster
                .core
                .readNamespacedSecret("creds", ns)
                .execute()
                .getMetadata()
                .getAnnotations()
                .get("capstan.dev/content-hash"));
    Manifest secret = SecretSpec.of(ns, "creds", Map.of("password", "hunter2")).render().get(0);
    SecretHashKey key = Objects.requireNonNull(first.release().secretHashKey());
    assertThat(annotation)
        .startsWith("hmac-sha256:")
        .isNotEqualTo(ContentHash.of(secret))
        .isNotEqualTo(SecretHashKey.generate().hash(secret));
    assertThat(key.verifies(secret, annotation)).isTrue();
    assertThat(controller.get(ns, "app").orElseThrow().secretHashKey()).isEqualTo(key);
    // the plan from the spec alone and with payloads: nothing to do, no drift on the Secret
    assertThat(controller.plan(spec(ns, v1)).changesNothing()).isTrue();
    assertThat(controller.plan(spec(ns, v1), v1).changesNothing()).isTrue();
  }
}
