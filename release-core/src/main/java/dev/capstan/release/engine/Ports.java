package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The two ports: the cluster ({@link Orchestrator}) and the persistence ({@link Store}). */
record Ports(Orchestrator orchestrator, Store store) {
  Ports {
    requireNonNull(orchestrator, "orchestrator");
    requireNonNull(store, "store");
  }

  /** Observes each scope (kind and namespace) in one batch. */
  LiveState observe(Map<LiveState.Scope, Set<String>> names) {
    return observe(names, List.of(), Map.of());
  }

  /**
   * Observes each scope (kind and namespace) in one batch, adding {@code known}: objects known to
   * exist without a read, and telling drift by {@code applied}, the objects as Capstan would apply
   * them ({@link Orchestrator#observe(dev.capstan.release.model.Kind, String, Set, Map)}). A scope
   * left with no name to read is not read.
   */
  LiveState observe(
      Map<LiveState.Scope, Set<String>> names,
      List<LiveObject> known,
      Map<ResourceRef, Manifest> applied) {
    Map<LiveState.Scope, Map<String, Manifest>> appliedByScope = new HashMap<>();
    applied.forEach(
        (ref, object) ->
            appliedByScope
                .computeIfAbsent(
                    new LiveState.Scope(ref.kind(), ref.namespace()), s -> new HashMap<>())
                .put(ref.name(), object));
    Map<LiveState.Scope, List<LiveObject>> found = new HashMap<>();
    names.forEach(
        (scope, n) ->
            found.put(
                scope,
                new ArrayList<>(
                    n.isEmpty()
                        ? List.of()
                        : orchestrator.observe(
                            scope.kind(),
                            scope.namespace(),
                            n,
                            appliedByScope.getOrDefault(scope, Map.of())))));
    for (LiveObject o : known) {
      found
          .computeIfAbsent(
              new LiveState.Scope(o.ref().kind(), o.ref().namespace()), s -> new ArrayList<>())
          .add(o);
    }
    LiveState.Builder live = LiveState.builder();
    found.forEach((scope, objects) -> live.observed(scope.kind(), scope.namespace(), objects));
    return live.build();
  }
}
