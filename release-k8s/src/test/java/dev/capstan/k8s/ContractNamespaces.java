package dev.capstan.k8s;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The namespaces of the port contracts' ITs (whose tests take no {@code TestNamespace}): fresh
 * names with a prefix, created labelled {@code capstan.dev/test=true} and ready for pods (their
 * {@code default} ServiceAccount exists), remembered, and deleted with {@link #deleteAll()} after
 * the class, as {@link KubernetesStoreContractIT} does with its own.
 */
final class ContractNamespaces {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration READY = Duration.ofSeconds(60);

  private final ControlPlane plane;
  private final String prefix;
  private final List<String> names = new CopyOnWriteArrayList<>();

  ContractNamespaces(ControlPlane plane, String prefix) {
    this.plane = plane;
    this.prefix = prefix;
  }

  /** A fresh name, remembered (a test may create the namespace through the port under test). */
  String newName() {
    String name = prefix + "-" + Integer.toString(RANDOM.nextInt(1 << 30), 36);
    names.add(name);
    return name;
  }

  /** A fresh namespace, created through the plane's client, whose pods may be created. */
  String create() {
    String name = newName();
    CoreV1Api core = new CoreV1Api(plane.client());
    try {
      core.createNamespace(
              new V1Namespace()
                  .metadata(
                      new V1ObjectMeta().name(name).labels(Map.of("capstan.dev/test", "true"))))
          .execute();
    } catch (ApiException e) {
      throw new IllegalStateException(
          "cannot create namespace " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(),
          e);
    }
    // the ServiceAccount admission plugin rejects pods until the controller made "default"
    Await.until(
        "serviceaccount " + name + "/default",
        READY,
        () -> {
          try {
            return core.readNamespacedServiceAccount("default", name).execute();
          } catch (ApiException e) {
            if (e.getCode() == 404) {
              return null;
            }
            throw e;
          }
        });
    return name;
  }

  /** Every name handed out so far. */
  List<String> names() {
    return List.copyOf(names);
  }

  /**
   * Deletes every namespace handed out that exists.
   *
   * @throws IllegalStateException naming those that could not be deleted
   */
  void deleteAll() {
    CoreV1Api core = new CoreV1Api(plane.client());
    List<String> failed = new java.util.ArrayList<>();
    for (String name : names) {
      try {
        core.deleteNamespace(name).execute();
      } catch (ApiException e) {
        if (e.getCode() != 404) {
          failed.add(name + " (HTTP " + e.getCode() + ")");
        }
      }
    }
    if (!failed.isEmpty()) {
      throw new IllegalStateException("could not delete namespaces " + failed);
    }
  }
}
