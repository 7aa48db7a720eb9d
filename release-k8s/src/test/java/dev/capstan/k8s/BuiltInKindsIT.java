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

  /**
   * Every group the API server serves itself is one whose kinds {@link Int32Fields} reads from
   * client-java's models: a group it does not list would leave its 32-bit fields unchecked.
   */
  @Test
  void everyGroupTheServerServesItselfIsABuiltInGroup(ControlPlane plane) throws Exception {
    Set<String> crdGroups = new java.util.HashSet<>();
    new io.kubernetes.client.openapi.apis.ApiextensionsV1Api(plane.client())
        .listCustomResourceDefinition()
        .execute()
        .getItems()
        .forEach(crd -> crdGroups.add(crd.getSpec().getGroup()));
    Set<String> served = new java.util.TreeSet<>();
    new Discovery(plane.client())
        .refresh()
        .values()
        .forEach(list -> list.forEach(r -> served.add(r.group())));
    served.removeAll(crdGroups);

    assertThat(served).isNotEmpty();
    assertThat(Int32Fields.BUILT_IN_GROUPS).containsAll(served);
    assertThat(Int32Fields.model(Kind.DEPLOYMENT))
        .contains(io.kubernetes.client.openapi.models.V1Deployment.class);
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
