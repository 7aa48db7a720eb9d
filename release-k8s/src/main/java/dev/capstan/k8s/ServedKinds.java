package dev.capstan.k8s;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Which kinds the cluster serves, as discovery says, and the refusal of one it does not. */
final class ServedKinds {
  private final DynamicApis apis;

  ServedKinds(DynamicApis apis) {
    this.apis = apis;
  }

  /**
   * Why the cluster cannot take {@code kind}, from discovery (read again once when the kind is
   * unknown): not served, not at its version, or at another scope; empty when it can.
   */
  Optional<String> check(Kind kind) {
    List<Discovery.Resource> served = apis.served(kind);
    if (served.isEmpty()) {
      return Optional.of("the cluster does not serve " + kind.key());
    }
    Optional<Discovery.Resource> atVersion =
        served.stream().filter(r -> r.version().equals(kind.version())).findFirst();
    if (atVersion.isEmpty()) {
      return Optional.of(
          "the cluster does not serve "
              + kind.key()
              + " at version "
              + kind.version()
              + " (it serves "
              + served.stream().map(Discovery.Resource::version).collect(Collectors.joining(", "))
              + ")");
    }
    if (atVersion.get().namespaced() != kind.namespaced()) {
      return Optional.of(
          atVersion.get().namespaced()
              ? kind.key()
                  + " is namespaced in the cluster, but the release has it cluster-scoped"
                  + " (give it a namespace)"
              : kind.key()
                  + " is cluster-scoped in the cluster, but the release gives it a namespace");
    }
    return Optional.empty();
  }

  /** The resource serving {@code kind}, or a 404 {@code ClusterException} naming the object. */
  Discovery.Resource served(Kind kind, String operation, ResourceRef ref) {
    Optional<String> problem = check(kind);
    if (problem.isPresent()) {
      throw new KubeFailure(404, "NotFound", problem.get(), null)
          .toException(operation, kind.key(), ref.namespace(), ref.name());
    }
    return apis.resolve(kind).orElseThrow();
  }
}
