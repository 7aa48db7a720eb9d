package dev.capstan.release;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.plan.LiveState;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
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
    LiveState.Builder live = LiveState.builder();
    names.forEach(
        (scope, n) ->
            live.observed(
                scope.kind(),
                scope.namespace(),
                orchestrator.observe(scope.kind(), scope.namespace(), n)));
    return live.build();
  }
}
