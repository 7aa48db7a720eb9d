package dev.capstan.release.engine;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.plan.LiveState;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** The two ports: the cluster ({@link Orchestrator}) and the persistence ({@link Store}). */
record Ports(Orchestrator orchestrator, Store store) {
  Ports {
    requireNonNull(orchestrator, "orchestrator");
    requireNonNull(store, "store");
  }

  /**
   * Observes each scope (kind and namespace) in one batch; at once when the orchestrator
   * {@linkplain Orchestrator#observesConcurrently allows}.
   */
  LiveState observe(Map<LiveState.Scope, Set<String>> names) {
    return observe(names, List.of(), Map.of(), null);
  }

  /**
   * Observes each scope as {@link #observe(Map)} does, telling the orchestrator which names {@code
   * last}, the release's last record, names among its objects ({@link Orchestrator#observeOwned}).
   */
  LiveState observe(Map<LiveState.Scope, Set<String>> names, @Nullable Release last) {
    return observe(names, List.of(), Map.of(), last);
  }

  /**
   * Observes each scope (kind and namespace) in one batch, adding {@code known}: objects known to
   * exist without a read, and telling drift by {@code applied}, the objects as Capstan would apply
   * them ({@link Orchestrator#observe(dev.capstan.release.model.Kind, String, Set, Map)}). A scope
   * left with no name to read is not read. A scope whose every name {@code last} (the release's
   * last record, if any) names among its objects is observed as that release's ({@link
   * Orchestrator#observeOwned}).
   */
  LiveState observe(
      Map<LiveState.Scope, Set<String>> names,
      List<LiveObject> known,
      Map<ResourceRef, Manifest> applied,
      @Nullable Release last) {
    Set<ResourceRef> owned = new HashSet<>();
    if (last != null) {
      last.owns().forEach(o -> owned.add(o.ref()));
    }
    Map<LiveState.Scope, Map<String, Manifest>> appliedByScope = new HashMap<>();
    applied.forEach(
        (ref, object) ->
            appliedByScope
                .computeIfAbsent(
                    new LiveState.Scope(ref.kind(), ref.namespace()), s -> new HashMap<>())
                .put(ref.name(), object));
    Map<LiveState.Scope, List<LiveObject>> found = new HashMap<>();
    List<Map.Entry<LiveState.Scope, Set<String>>> scopes =
        names.entrySet().stream().filter(e -> !e.getValue().isEmpty()).toList();
    Function<Map.Entry<LiveState.Scope, Set<String>>, List<LiveObject>> read =
        e -> {
          LiveState.Scope scope = e.getKey();
          Map<String, Manifest> appliedHere = appliedByScope.getOrDefault(scope, Map.of());
          boolean allOwned =
              e.getValue().stream()
                  .allMatch(
                      n -> owned.contains(ResourceRef.of(scope.kind(), scope.namespace(), n)));
          return last != null && allOwned
              ? orchestrator.observeOwned(
                  scope.kind(), scope.namespace(), e.getValue(), appliedHere, last.identity())
              : orchestrator.observe(scope.kind(), scope.namespace(), e.getValue(), appliedHere);
        };
    List<List<LiveObject>> results =
        orchestrator.observesConcurrently() && scopes.size() > 1
            ? concurrently(scopes, read)
            : scopes.stream().map(read).toList();
    names.keySet().forEach(scope -> found.put(scope, new ArrayList<>()));
    for (int i = 0; i < scopes.size(); i++) {
      found.put(scopes.get(i).getKey(), new ArrayList<>(results.get(i)));
    }
    return liveState(found, known);
  }

  /**
   * The live state of the objects {@code found} in each scope observed, with {@code known} (objects
   * known present without a read) added to theirs.
   */
  static LiveState liveState(Map<LiveState.Scope, List<LiveObject>> found, List<LiveObject> known) {
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

  /**
   * What observing {@code names} (adding {@code known}) would have returned, taken from {@code
   * shared}, an observation of at least those names.
   */
  static LiveState slice(
      LiveState shared, Map<LiveState.Scope, Set<String>> names, List<LiveObject> known) {
    Map<LiveState.Scope, List<LiveObject>> found = new HashMap<>();
    names.forEach(
        (scope, inScope) -> {
          List<LiveObject> objects = new ArrayList<>();
          for (String name : inScope) {
            shared
                .get(ResourceRef.of(scope.kind(), scope.namespace(), name))
                .ifPresent(objects::add);
          }
          found.put(scope, objects);
        });
    return liveState(found, known);
  }

  /**
   * {@code read} of each item, the first on this thread and the others on threads of their own; the
   * first failure in item order is thrown once all have ended. An interrupt of this thread
   * interrupts the others and throws with the interrupt status set again.
   */
  private static <T, R> List<R> concurrently(List<T> items, Function<T, R> read) {
    List<FutureTask<R>> others = new ArrayList<>();
    for (T item : items.subList(1, items.size())) {
      FutureTask<R> task = new FutureTask<>(() -> read.apply(item));
      others.add(task);
      Workers.pool().execute(task);
    }
    List<R> out = new ArrayList<>(items.size());
    RuntimeException first = null;
    try {
      out.add(read.apply(items.get(0)));
    } catch (RuntimeException e) {
      first = e;
      out.add(null);
    }
    try {
      for (FutureTask<R> task : others) {
        try {
          out.add(task.get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error;
          }
          if (first == null) {
            first =
                e.getCause() instanceof RuntimeException re
                    ? re
                    : new ReleaseException("observing failed", e.getCause());
          }
          out.add(null);
        }
      }
    } catch (InterruptedException e) {
      others.forEach(t -> t.cancel(true));
      Thread.currentThread().interrupt();
      throw new ReleaseException("interrupted while observing", e);
    }
    if (first != null) {
      throw first;
    }
    return out;
  }
}
