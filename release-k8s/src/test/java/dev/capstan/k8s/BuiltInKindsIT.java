package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.release.model.Kind;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The built-in kinds that spare a discovery round are mapped exactly as the real API server's
 * discovery maps them (group, version, plural, scope), and a release of them reads no discovery.
 */
@ControlPlaneTest
class BuiltInKindsIT {

  @Test
  void everyBuiltInKindIsServedAsTheTableSays(ControlPlane plane) {
    Discovery discovery = new Discovery(plane.client());

    assertThat(BuiltInKinds.all()).hasSize(31);
    for (Discovery.Resource builtIn : BuiltInKinds.all()) {
      assertThat(discovery.find(builtIn.group(), builtIn.kind()))
          .as(builtIn.group() + "/" + builtIn.kind())
          .contains(builtIn);
    }
  }

  @Test
  void observingBuiltInKindsReadsNoDiscovery(ControlPlane plane) {
    KubeClients kube =
        KubeClients.fromApiClient(plane.newClient(java.time.Duration.ofSeconds(30)), "it");
    KubernetesOrchestrator cluster = new KubernetesOrchestrator(kube);

    assertThat(cluster.checkKind(Kind.DEPLOYMENT)).isEmpty();
    cluster.observe(Kind.DEPLOYMENT, "default", Set.of("web"));
    cluster.observe(Kind.NAMESPACE, "", Set.of("default"));

    assertThat(kube.requests().counts().keySet())
        .containsExactlyInAnyOrder("LIST deployments", "GET namespaces");
  }
}
