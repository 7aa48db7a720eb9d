package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.port.PreconditionFailedException;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import java.util.Map;
import java.util.Objects;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * A create is one server-side apply that cannot create over an existing object (see {@link
 * KubernetesOrchestrator#CREATE_ONLY_VERSION}): the created fields are Capstan's apply entry's, so
 * a later cast that drops one removes it, and an object that appeared since the plan is refused
 * with 409 and left as it was.
 */
@ControlPlaneTest
class CreatingApplyIT {

  private static Payloads payloads(String ns, boolean full) {
    ServiceSpec.Builder web =
        ServiceSpec.builder(ns, "web").image("registry.example/web:1").port("http", 8080);
    web.env("MODE", "prod");
    if (full) {
      web.env("DEBUG", "1");
    }
    return Payloads.builder()
        .configMap(
            ConfigMapSpec.of(
                ns,
                "settings",
                full ? Map.of("color", "blue", "size", "L") : Map.of("color", "blue")))
        .service(web.build())
        .build();
  }

  @Test
  void aCreateIsOneApplyAndALaterCastThatDropsAFieldRemovesIt(ControlPlane plane, TestNamespace tns)
      throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads full = payloads(ns, true);
    cluster.requests().reset();

    controller.cast(ReleaseSpec.of(ns, "web", full), full);

    // One request per object, and the fields are in Capstan's apply entry alone.
    assertThat(ReleaseLifecycleIT.objectWrites(cluster))
        .containsExactlyInAnyOrder(
            "PATCH configmaps " + ns + "/settings",
            "PATCH deployments " + ns + "/web",
            "PATCH services " + ns + "/web");
    assertThat(cluster.managedFields("", "v1", "configmaps", ns, "settings"))
        .extracting(V1ManagedFieldsEntry::getManager, V1ManagedFieldsEntry::getOperation)
        .containsExactly(Tuple.tuple("capstan", "Apply"));
    assertThat(cluster.managedFields("apps", "v1", "deployments", ns, "web"))
        .filteredOn(e -> "capstan".equals(e.getManager()))
        .extracting(V1ManagedFieldsEntry::getOperation, V1ManagedFieldsEntry::getSubresource)
        .containsExactly(Tuple.tuple("Apply", null));

    Payloads fewer = payloads(ns, false);
    cluster.requests().reset();
    controller.cast(ReleaseSpec.of(ns, "web", fewer), fewer);

    assertThat(cluster.core.readNamespacedConfigMap("settings", ns).execute().getData())
        .containsExactly(entry("color", "blue"));
    assertThat(
            cluster
                .apps
                .readNamespacedDeployment("web", ns)
                .execute()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getEnv())
        .extracting(V1EnvVar::getName)
        .doesNotContain("DEBUG")
        .contains("MODE");
    assertThat(ReleaseLifecycleIT.objectWrites(cluster))
        .containsExactlyInAnyOrder(
            "PATCH configmaps " + ns + "/settings", "PATCH deployments " + ns + "/web");
  }

  @Test
  void aCreateOverAnObjectThatAppearedSinceThePlanIsRefusedAndWritesNothing(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    Payloads p = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("color", "blue")));
    String[] appeared = {""};
    ReleaseController controller =
        cluster
            .controllerPausingBeforeTheFirstWrite(
                () -> {
                  cluster.applyConfigMapAs(
                      "kubectl", ns, "settings", Map.of("color", "red"), false);
                  appeared[0] =
                      cluster
                          .core
                          .readNamespacedConfigMap("settings", ns)
                          .execute()
                          .getMetadata()
                          .getResourceVersion();
                })
            .build();
    cluster.requests().reset();

    CastFailedException failed =
        catchThrowableOfType(
            CastFailedException.class, () -> controller.cast(ReleaseSpec.of(ns, "app", p), p));

    assertThat(failed.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(failed.result().release().failure())
        .isEqualTo(
            "ConfigMap/"
                + ns
                + "/settings was created by someone else (it is unowned) since the plan; not taken");
    PreconditionFailedException refused = null;
    for (Throwable t = failed; t != null; t = t.getCause()) {
      if (t instanceof PreconditionFailedException f) {
        refused = f;
      }
    }
    assertThat(refused).isNotNull();
    Objects.requireNonNull(refused);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.ref()).isEqualTo(ResourceRef.of(Kind.CONFIG_MAP, ns, "settings"));
    assertThat(refused)
        .hasMessageContaining(
            "precondition absent failed: Operation cannot be fulfilled on configmaps"
                + " \"settings\": the object has been modified");
    V1ConfigMap live = cluster.core.readNamespacedConfigMap("settings", ns).execute();
    assertThat(live.getData()).containsExactly(entry("color", "red"));
    assertThat(live.getMetadata().getResourceVersion()).isEqualTo(appeared[0]);
    assertThat(live.getMetadata().getAnnotations()).isNullOrEmpty();
    assertThat(cluster.managedFields("", "v1", "configmaps", ns, "settings"))
        .extracting(V1ManagedFieldsEntry::getManager)
        .containsExactly("kubectl");
    // The one request on the object: the refused create.
    assertThat(ReleaseLifecycleIT.objectWrites(cluster))
        .containsExactly("PATCH configmaps " + ns + "/settings");
  }
}
