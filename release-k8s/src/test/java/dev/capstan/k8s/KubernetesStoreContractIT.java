package dev.capstan.k8s;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.release.port.Store;
import dev.capstan.store.tck.StoreContract;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Kubernetes store keeps release-store-tck's contract on the real control plane: records in
 * Secrets (chunked past 1 MiB), the lease a {@code coordination.k8s.io} Lease. Each test gets two
 * fresh namespaces, deleted after the class.
 */
@ControlPlaneTest
class KubernetesStoreContractIT extends StoreContract {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final List<String> NAMESPACES = new CopyOnWriteArrayList<>();
  private static @Nullable ControlPlane plane;
  private static @Nullable KubernetesStore store;

  @BeforeAll
  static void connect(ControlPlane controlPlane) {
    plane = controlPlane;
    store = new KubernetesStore(KubeClients.fromKubeconfig(controlPlane.kubeconfig()));
  }

  @AfterAll
  static void deleteNamespaces() throws ApiException {
    if (plane == null) {
      return;
    }
    CoreV1Api core = new CoreV1Api(plane.client());
    for (String name : NAMESPACES) {
      core.deleteNamespace(name).execute();
    }
  }

  @Override
  protected String newNamespace(int index) {
    if (plane == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    String name = "it-tck-" + Integer.toString(RANDOM.nextInt(1 << 30), 36);
    try {
      new CoreV1Api(plane.client())
          .createNamespace(
              new V1Namespace()
                  .metadata(
                      new V1ObjectMeta().name(name).labels(Map.of("capstan.dev/test", "true"))))
          .execute();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot create namespace " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(),
          e);
    }
    NAMESPACES.add(name);
    return name;
  }

  @Override
  protected Store newStore() {
    if (store == null) {
      throw new IllegalStateException("the control plane is connected before all tests");
    }
    return store;
  }

  /** A Lease lives in the release's namespace, so every grant proves that namespace exists. */
  @org.junit.jupiter.api.Test
  void everyGrantProvesTheNamespace() {
    java.time.Instant t0 = java.time.Instant.parse("2026-01-01T00:00:00Z");
    java.time.Duration ttl = java.time.Duration.ofSeconds(30);
    String ns = newNamespace(9);

    org.assertj.core.api.Assertions.assertThat(
            newStore().acquireLease(ns, "app", "alice", t0, ttl).namespaceExists())
        .isTrue();
    // taken over after expiry: again a write in the namespace
    org.assertj.core.api.Assertions.assertThat(
            newStore().acquireLease(ns, "app", "bob", t0.plus(ttl), ttl).namespaceExists())
        .isTrue();
  }
}
