package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.store.tck.OrchestratorContract;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.util.PatchUtils;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  private static @Nullable KubeClients clients;

  @BeforeAll
  static void connect(ControlPlane controlPlane) {
    namespaces = new ContractNamespaces(controlPlane, "it-tck-orch");
    clients = KubeClients.fromKubeconfig(controlPlane.kubeconfig());
    orchestrator = new KubernetesOrchestrator(clients);
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

  /**
   * Observing names the owner's last record names LISTs the objects its labels select, one request
   * when it finds them all; a name it misses (another release's object, one whose labels were
   * edited away, an absent one) is read in a second LIST, and reported as it is.
   */
  @Test
  void observeOwnedListsByTheStampsLabelsThenWhatTheyMissed() throws Exception {
    Manifest alpha = configMap("alpha", Map.of("k", "a"));
    Manifest beta = configMap("beta", Map.of("k", "b"));
    Manifest gamma = configMap("gamma", Map.of("k", "c"));
    orchestrator().apply(alpha, stamp(OWNER, 1, alpha));
    orchestrator().apply(beta, stamp(OWNER, 1, beta));
    orchestrator().apply(gamma, stamp(OTHER, 1, gamma));
    for (int i = 0; i < 5; i++) {
      orchestrator().apply(configMap("other-" + i, Map.of("k", "x")), null);
    }
    String list = "LIST configmaps " + namespace();

    long before = lists(list);
    List<LiveObject> mine =
        orchestrator()
            .observeOwned(Kind.CONFIG_MAP, namespace(), Set.of("alpha", "beta"), Map.of(), OWNER);
    assertThat(mine).extracting(LiveObject::ref).containsExactlyInAnyOrder(alpha.ref(), beta.ref());
    assertThat(lists(list) - before).isEqualTo(1);

    before = lists(list);
    Set<String> three = Set.of("alpha", "beta", "gamma", "ghost");
    assertThat(orchestrator().observeOwned(Kind.CONFIG_MAP, namespace(), three, Map.of(), OWNER))
        .extracting(LiveObject::ref, LiveObject::stamp)
        .containsExactlyInAnyOrder(
            tuple(alpha.ref(), stamp(OWNER, 1, alpha)),
            tuple(beta.ref(), stamp(OWNER, 1, beta)),
            tuple(gamma.ref(), stamp(OTHER, 1, gamma)));
    assertThat(lists(list) - before).isEqualTo(2);

    // a user strips beta's labels: its annotations still say whose it is
    CoreV1Api core = new CoreV1Api(clients().apiClient());
    PatchUtils.patch(
        V1ConfigMap.class,
        () ->
            core.patchNamespacedConfigMap(
                    "beta",
                    namespace(),
                    new V1Patch("{\"metadata\":{\"labels\":{\"capstan.dev/release-id\":null}}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        core.getApiClient());
    before = lists(list);
    assertThat(
            orchestrator()
                .observeOwned(
                    Kind.CONFIG_MAP, namespace(), Set.of("alpha", "beta"), Map.of(), OWNER))
        .extracting(LiveObject::ref, LiveObject::stamp)
        .containsExactlyInAnyOrder(
            tuple(alpha.ref(), stamp(OWNER, 1, alpha)), tuple(beta.ref(), stamp(OWNER, 1, beta)));
    assertThat(lists(list) - before).isEqualTo(2);
  }

  private static long lists(String line) {
    return clients().requests().log().stream().filter(line::equals).count();
  }

  private static KubeClients clients() {
    if (clients == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    return clients;
  }

  /** The contract's never-ready image is the one the control plane's kwok never makes ready. */
  @Test
  void theNeverReadyImageIsTheControlPlanes() {
    assertThat(NEVER_READY_IMAGE).isEqualTo(ControlPlane.NEVER_READY_IMAGE);
  }
}
