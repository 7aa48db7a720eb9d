package dev.capstan.release;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.ResourcePort;
import dev.capstan.release.port.Store;
import java.util.Map;
import java.util.Set;

/**
 * The two ports, and which one handles which kind: services the orchestrator, the rest the store.
 */
record Ports(Orchestrator orchestrator, Store store) {
  Ports {
    requireNonNull(orchestrator, "orchestrator");
    requireNonNull(store, "store");
  }

  ResourcePort of(ResourceType type) {
    return type == ResourceType.SERVICE ? orchestrator : store;
  }

  ResourcePort of(ResourceRef ref) {
    return of(ref.type());
  }

  /** Observes each scope in one batch, from the port that handles its kind. */
  LiveState observe(Map<LiveState.Scope, Set<String>> names) {
    LiveState.Builder live = LiveState.builder();
    names.forEach(
        (scope, n) ->
            live.observed(
                scope.type(),
                scope.namespace(),
                of(scope.type()).observe(scope.type(), scope.namespace(), n)));
    return live.build();
  }
}
