package dev.capstan.k8s;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.RolloutStatus;
import dev.capstan.store.tck.PlatformClusterContract;
import dev.capstan.update.cluster.ContainerState;
import dev.capstan.update.cluster.DeploymentState;
import dev.capstan.update.cluster.PlatformCluster;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Kubernetes platform cluster keeps release-store-tck's platform cluster contract on the real
 * control plane: the Deployment is created through the plane's client and waited for until rolled
 * out (kwok makes its pod ready). Each test gets a fresh namespace; the namespaces and the tests'
 * CRDs are deleted after the class.
 */
@ControlPlaneTest
class KubernetesPlatformClusterContractIT extends PlatformClusterContract {
  private static @Nullable ControlPlane plane;
  private static @Nullable ContractNamespaces namespaces;
  private static @Nullable KubernetesPlatformCluster cluster;

  @BeforeAll
  static void connect(ControlPlane controlPlane) {
    plane = controlPlane;
    namespaces = new ContractNamespaces(controlPlane, "it-tck-platform");
    cluster = new KubernetesPlatformCluster(KubeClients.fromKubeconfig(controlPlane.kubeconfig()));
  }

  @AfterAll
  static void deleteCrdsAndNamespaces() {
    if (plane == null || namespaces == null) {
      return;
    }
    ApiextensionsV1Api crds = new ApiextensionsV1Api(plane.client());
    List<String> failed = new ArrayList<>();
    for (String namespace : namespaces.names()) {
      try {
        crds.deleteCustomResourceDefinition(crdName(namespace)).execute();
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          failed.add(crdName(namespace) + " (HTTP " + e.getCode() + ")");
        }
      }
    }
    namespaces.deleteAll();
    if (!failed.isEmpty()) {
      throw new IllegalStateException("could not delete CRDs " + failed);
    }
  }

  @Override
  protected String newNamespace() {
    if (namespaces == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    return namespaces.create();
  }

  @Override
  protected PlatformCluster newCluster(DeploymentState installed) {
    if (plane == null || cluster == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    AppsV1Api apps = new AppsV1Api(plane.client());
    String namespace = installed.workload().namespace();
    String name = installed.workload().deployment();
    List<V1Container> containers = new ArrayList<>();
    for (ContainerState c : installed.containers()) {
      containers.add(
          new V1Container()
              .name(c.name())
              .image(c.image())
              .env(
                  c.env().stream()
                      .map(e -> new V1EnvVar().name(e.name()).value(e.value()))
                      .toList()));
    }
    try {
      apps.createNamespacedDeployment(
              namespace,
              new V1Deployment()
                  .metadata(
                      new V1ObjectMeta()
                          .name(name)
                          .labels(installed.labels())
                          .annotations(installed.annotations()))
                  .spec(
                      new V1DeploymentSpec()
                          .replicas(1)
                          .selector(new V1LabelSelector().matchLabels(installed.selector()))
                          .template(
                              new V1PodTemplateSpec()
                                  .metadata(new V1ObjectMeta().labels(installed.selector()))
                                  .spec(new V1PodSpec().containers(containers)))))
          .execute();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot create deployment " + installed.workload() + ": HTTP " + e.getCode(), e);
    }
    Await.until(
        "deployment " + installed.workload() + " to roll out",
        Duration.ofSeconds(90),
        () -> apps.readNamespacedDeployment(name, namespace).execute(),
        d -> RolloutStatus.of(d).state() == RolloutStatus.State.COMPLETE);
    return cluster;
  }
}
