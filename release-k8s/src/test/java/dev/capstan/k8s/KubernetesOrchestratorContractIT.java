package dev.capstan.k8s;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.store.tck.OrchestratorContract;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes orchestrator keeps release-store-tck's orchestrator contract on the real control
 * plane (kwok runs the pods: an image it cannot pull stays in ImagePullBackOff, as {@link
 * ControlPlane#NEVER_READY_IMAGE} does). Each test gets a fresh namespace, and the namespaces the
 * tests create through the port are remembered; all are deleted after the class.
 */
@ControlPlaneTest
class KubernetesOrchestratorContractIT extends OrchestratorContract {
  private static @Nullable ContractNamespaces namespaces;
  private static @Nullable KubernetesOrchestrator orchestrator;

  @BeforeAll
  static void connect(ControlPlane controlPlane) {
    namespaces = new ContractNamespaces(controlPlane, "it-tck-orch");
    orchestrator =
        new KubernetesOrchestrator(KubeClients.fromKubeconfig(controlPlane.kubeconfig()));
  }

  @AfterAll
  static void deleteNamespaces() {
    if (namespaces != null) {
      namespaces.deleteAll();
    }
  }

  private static ContractNamespaces namespaces() {
    if (namespaces == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    return namespaces;
  }

  @Override
  protected String newNamespaceName() {
    return namespaces().newName();
  }

  @Override
  protected String newNamespace() {
    return namespaces().create();
  }

  @Override
  protected Orchestrator newOrchestrator() {
    if (orchestrator == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    return orchestrator;
  }

  /** The contract's never-ready image is the one the control plane's kwok never makes ready. */
  @Test
  void theNeverReadyImageIsTheControlPlanes() {
    org.assertj.core.api.Assertions.assertThat(NEVER_READY_IMAGE)
        .isEqualTo(ControlPlane.NEVER_READY_IMAGE);
  }
}
