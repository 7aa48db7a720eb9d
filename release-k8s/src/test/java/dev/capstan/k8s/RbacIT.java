package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.capstan.common.ClusterException;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.update.cluster.ContainerPatch;
import dev.capstan.update.cluster.DeploymentPatch;
import dev.capstan.update.cluster.InventoryQuery;
import dev.capstan.update.cluster.Workload;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.util.Yaml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The RBAC of release-k8s/README.md is enough, and each pair of roles is enough alone: the
 * ClusterRoles are created from the README's YAML, bound to a user as the README says, and the
 * adapters run impersonating that user. The release roles cast, upgrade, uninstall and purge a
 * release and are refused a platform update; the platform roles update a Deployment and apply a CRD
 * and are refused a cast.
 */
@ControlPlaneTest
class RbacIT {
  private static final List<String> ROLES =
      List.of(
          "capstan-release",
          "capstan-release-cluster",
          "capstan-platform",
          "capstan-platform-namespace");

  /** The first YAML block of the README's RBAC section: the ClusterRoles. */
  private static List<V1ClusterRole> readmeRoles() throws IOException {
    String readme = Files.readString(Path.of("README.md"), UTF_8);
    String section = readme.substring(readme.indexOf("## RBAC"));
    int start = section.indexOf("```yaml\n") + "```yaml\n".length();
    String yaml = section.substring(start, section.indexOf("```", start));
    List<V1ClusterRole> roles = new ArrayList<>();
    for (Object o : Yaml.loadAll(yaml)) {
      roles.add((V1ClusterRole) o);
    }
    return roles;
  }

  /**
   * The README's roles created under names of their own, bound to a new user: {@code namespaced}
   * with a RoleBinding in {@code ns}, {@code clusterWide} with a ClusterRoleBinding.
   */
  private static final class Bound implements AutoCloseable {
    final String suffix = Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36);
    final String user = "capstan-rbac-" + suffix;
    final RbacAuthorizationV1Api rbac;
    final List<String> created = new ArrayList<>();
    final KubeClients kube;

    Bound(ControlPlane plane, String ns, String namespaced, String clusterWide) throws Exception {
      rbac = new RbacAuthorizationV1Api(plane.client());
      List<V1ClusterRole> roles = readmeRoles();
      assertThat(roles).extracting(r -> r.getMetadata().getName()).containsExactlyElementsOf(ROLES);
      RbacV1Subject subject =
          new RbacV1Subject().kind("User").name(user).apiGroup("rbac.authorization.k8s.io");
      for (V1ClusterRole role : roles) {
        String name = role.getMetadata().getName();
        if (!name.equals(namespaced) && !name.equals(clusterWide)) {
          continue;
        }
        role.getMetadata().setName(name + "-" + suffix);
        rbac.createClusterRole(role).execute();
        created.add(role.getMetadata().getName());
      }
      V1RoleRef clusterRef =
          new V1RoleRef()
              .apiGroup("rbac.authorization.k8s.io")
              .kind("ClusterRole")
              .name(clusterWide + "-" + suffix);
      rbac.createClusterRoleBinding(
              new V1ClusterRoleBinding()
                  .metadata(new V1ObjectMeta().name(clusterWide + "-" + suffix))
                  .roleRef(clusterRef)
                  .subjects(List.of(subject)))
          .execute();
      rbac.createNamespacedRoleBinding(
              ns,
              new V1RoleBinding()
                  .metadata(new V1ObjectMeta().name("capstan"))
                  .roleRef(
                      new V1RoleRef()
                          .apiGroup("rbac.authorization.k8s.io")
                          .kind("ClusterRole")
                          .name(namespaced + "-" + suffix))
                  .subjects(List.of(subject)))
          .execute();
      ApiClient impersonating = plane.newClient(Duration.ofSeconds(30));
      impersonating.addDefaultHeader("Impersonate-User", user);
      kube = KubeClients.fromApiClient(impersonating, "rbac");
    }

    @Override
    public void close() {
      for (String name : created) {
        deleteQuietly(() -> rbac.deleteClusterRoleBinding(name).execute());
        deleteQuietly(() -> rbac.deleteClusterRole(name).execute());
      }
    }
  }

  @Test
  void theReleaseRolesAloneCastUpgradeAndUninstallAndAreRefusedThePlatformsCrds(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    try (Bound bound = new Bound(plane, ns, "capstan-release", "capstan-release-cluster")) {
      // The user really is restricted: the release role is not bound in "default".
      ClusterException forbidden =
          catchThrowableOfType(
              ClusterException.class,
              () ->
                  new KubernetesOrchestrator(bound.kube)
                      .observe(Kind.SECRET, "default", Set.of("x")));
      assertThat(forbidden.status()).isEqualTo(403);
      assertThat(forbidden).hasMessageContaining(bound.user);

      releaseLifecycle(bound.kube, ns);

      // Deployments of its namespaces are a release's objects too; the platform's CRDs are not.
      dev.capstan.common.ClusterException refused =
          catchThrowableOfType(
              dev.capstan.common.ClusterException.class,
              () -> new KubernetesPlatformCluster(bound.kube).crd("gadgets.rbac.capstan.dev"));
      assertThat(refused.status()).isEqualTo(403);
      assertThat(refused).hasMessageContaining(bound.user);
    }
  }

  @Test
  void thePlatformRolesAloneUpdateADeploymentAndApplyACrdAndAreRefusedACast(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    try (Bound bound = new Bound(plane, ns, "capstan-platform-namespace", "capstan-platform")) {
      String crd = "gadgets." + bound.suffix + ".rbac.capstan.dev";
      try {
        platformUpdate(bound.kube, plane, ns, crd);
        assertThat(bound.kube.clusterId()).isNotEmpty();
      } finally {
        deleteQuietly(
            () ->
                new ApiextensionsV1Api(plane.client())
                    .deleteCustomResourceDefinition(crd)
                    .execute());
      }

      Payloads payloads = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("a", "b")));
      ReleaseController controller =
          ReleaseController.builder(
                  new KubernetesOrchestrator(bound.kube), new KubernetesStore(bound.kube))
              .build();
      ClusterException refused =
          catchThrowableOfType(
              ClusterException.class,
              () -> controller.cast(ReleaseSpec.of(ns, "app", payloads), payloads));
      assertThat(refused.status()).isEqualTo(403);
      assertThat(new CoreV1Api(plane.client()).listNamespacedConfigMap(ns).execute().getItems())
          .extracting(c -> c.getMetadata().getName())
          .containsExactly("kube-root-ca.crt");
    }
  }

  private static void releaseLifecycle(KubeClients kube, String ns) {
    ReleaseController controller =
        ReleaseController.builder(new KubernetesOrchestrator(kube), new KubernetesStore(kube))
            .build();
    Payloads payloads =
        Payloads.builder()
            .service(
                ServiceSpec.builder(ns, "web")
                    .image("registry.example/web:1")
                    .port("http", 80)
                    .build())
            .configMap(ConfigMapSpec.of(ns, "settings", Map.of("a", "b")))
            .secret(SecretSpec.of(ns, "creds", Map.of("p", "q")))
            .volume(
                VolumeSpec.of(ns, "data", "1Gi").withReclaimPolicy(VolumeSpec.ReclaimPolicy.RETAIN))
            .build();
    ReleaseSpec spec = ReleaseSpec.of(ns, "app", payloads);

    assertThat(controller.cast(spec, payloads).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    Payloads fewer = payloads.without(payloads.refs().get(payloads.refs().size() - 1));
    assertThat(controller.cast(ReleaseSpec.of(ns, "app", fewer), fewer).release().revision())
        .isEqualTo(2);
    assertThat(
            controller.uninstall(ns, "app", UninstallOptions.defaults().withPurge(true)).purged())
        .isTrue();
  }

  private static void platformUpdate(KubeClients kube, ControlPlane plane, String ns, String crd)
      throws ApiException {
    Cluster admin = new Cluster(plane);
    ServiceSpec api = ServiceSpec.builder(ns, "api").image("registry.example/api:1").build();
    admin.orchestrator.apply(api.render().get(0), null);
    KubernetesPlatformCluster platform = new KubernetesPlatformCluster(kube);
    Workload workload = Workload.of(ns, "api");

    assertThat(
            platform.inventory(new InventoryQuery(List.of(workload), List.of(crd))).deployments())
        .hasSize(1);
    platform.patch(
        new DeploymentPatch(
            workload,
            List.of(new ContainerPatch.SetImage("api", "registry.example/api:2")),
            Map.of(),
            Map.of()));
    platform.rolloutWaiter().await(workload, Duration.ofMinutes(2));
    String group = crd.substring(crd.indexOf('.') + 1);
    Object document =
        Yaml.getSnakeYaml(null)
            .load(
                String.join(
                    "\n",
                    "apiVersion: apiextensions.k8s.io/v1",
                    "kind: CustomResourceDefinition",
                    "metadata: {name: " + crd + "}",
                    "spec:",
                    "  group: " + group,
                    "  names: {kind: Gadget, plural: gadgets}",
                    "  scope: Namespaced",
                    "  versions:",
                    "    - name: v1",
                    "      served: true",
                    "      storage: true",
                    "      schema: {openAPIV3Schema: {type: object}}"));
    @SuppressWarnings("unchecked")
    Map<String, @org.jspecify.annotations.Nullable Object> tree =
        (Map<String, @org.jspecify.annotations.Nullable Object>) document;
    assertThat(platform.applyCrd(crd, tree)).isEqualTo("created");
    assertThat(platform.crd(crd).orElseThrow().condition("Established").orElseThrow().holds())
        .isTrue();
    assertThat(admin.image(ns, "api")).isEqualTo("registry.example/api:2");
  }

  private interface Call {
    void run() throws ApiException;
  }

  private static void deleteQuietly(Call call) {
    try {
      call.run();
    } catch (ApiException ignored) {
      // already gone
    }
  }
}
