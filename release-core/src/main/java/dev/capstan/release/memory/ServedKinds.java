package dev.capstan.release.memory;

import dev.capstan.common.CrdGate;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kinds an {@link InMemoryCluster} serves beyond the built-in ones, as an API server's
 * discovery tells them: those of the CRDs applied and those {@linkplain InMemoryCluster#serve
 * served} by a test, with each CRD's stored versions. Guarded by the cluster's monitor, as {@link
 * MemoryObjects} is.
 */
final class ServedKinds {
  final Map<String, Kind> kinds = new HashMap<>();

  /**
   * The {@code status.storedVersions} of each CRD: every storage version it was applied with, as
   * the API server keeps them (they are never removed by an apply).
   */
  final Map<ResourceRef, List<String>> storedVersions = new HashMap<>();

  /** An applied CRD makes its kind served, and its storage version one of its stored versions. */
  void learn(Manifest object) {
    Kind defined = object.kind().isCrd() ? Kind.definedBy(object.content()) : null;
    if (defined != null) {
      kinds.put(defined.key(), defined);
    }
    if (object.kind().isCrd() && object.content().get("spec") instanceof Map<?, ?> spec) {
      @SuppressWarnings("unchecked")
      Map<String, ?> tree = (Map<String, ?>) spec;
      List<String> stored = new ArrayList<>(storedVersions.getOrDefault(object.ref(), List.of()));
      for (String v : CrdGate.storageVersions(tree)) {
        if (!stored.contains(v)) {
          stored.add(v);
        }
      }
      storedVersions.put(object.ref(), List.copyOf(stored));
    }
  }

  Optional<String> check(Kind kind) {
    if (kind.builtIn()) {
      return Optional.empty();
    }
    Kind served = kinds.get(kind.key());
    if (served == null) {
      return Optional.of("the cluster does not serve " + kind.key() + " (no such CRD installed)");
    }
    if (served.namespaced() != kind.namespaced()) {
      return Optional.of(
          "the cluster serves "
              + kind.key()
              + " as "
              + (served.namespaced() ? "namespaced" : "cluster-scoped")
              + ", but the release has it "
              + (kind.namespaced() ? "namespaced" : "cluster-scoped"));
    }
    return Optional.empty();
  }
}
