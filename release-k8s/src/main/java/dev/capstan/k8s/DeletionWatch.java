package dev.capstan.k8s;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Waits until deleted objects are gone, by watching: per kind and namespace one LIST (which of them
 * still exist, and the version to watch from) and, while any does, a WATCH from that version until
 * their {@code DELETED} events arrived; a watch the server ends is followed by a new LIST. A kind
 * the cluster no longer serves (its CRD deleted) has no objects.
 */
final class DeletionWatch {
  private static final long MAX_WATCH_SECONDS = 300;

  private final DynamicApis apis;

  DeletionWatch(DynamicApis apis) {
    this.apis = apis;
  }

  private record Scope(Kind kind, String namespace) {}

  Readiness await(List<ResourceRef> refs, Duration timeout) {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    Map<Scope, Set<String>> groups = new LinkedHashMap<>();
    refs.stream()
        .sorted(ResourceRef.PRUNE_ORDER)
        .forEach(
            r ->
                groups
                    .computeIfAbsent(new Scope(r.kind(), r.namespace()), s -> new TreeSet<>())
                    .add(r.name()));
    List<ResourceRef> pending = new ArrayList<>();
    for (Map.Entry<Scope, Set<String>> g : groups.entrySet()) {
      Scope scope = g.getKey();
      Set<String> left = awaitGroup(scope, g.getValue(), deadline);
      left.forEach(name -> pending.add(ResourceRef.of(scope.kind(), scope.namespace(), name)));
    }
    return pending.isEmpty() ? Readiness.ready() : Readiness.timedOut(pending, timeout);
  }

  /** The names still present at the deadline. */
  private Set<String> awaitGroup(Scope scope, Set<String> names, long deadline) {
    Optional<Discovery.Resource> resource = apis.resolve(scope.kind());
    if (resource.isEmpty()) {
      return Set.of();
    }
    DynamicApis.Api api = apis.api(resource.get());
    String namespace = scope.kind().namespaced() ? scope.namespace() : null;
    String field = names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
    Set<String> left = new TreeSet<>(names);
    while (true) {
      ResourceApi.Names listed = api.calls.listNames(namespace, field);
      left.retainAll(listed.names());
      long seconds = TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime());
      if (left.isEmpty() || seconds <= 0) {
        return left;
      }
      ListOptions options =
          new ListOptions().timeoutSeconds((int) Math.min(MAX_WATCH_SECONDS, seconds));
      if (listed.resourceVersion() != null) {
        options.setResourceVersion(listed.resourceVersion());
      }
      if (field != null) {
        options.setFieldSelector(field);
      }
      Watchable<DynamicKubernetesObject> watch = api.calls.watch(namespace, options);
      try {
        for (Watch.Response<DynamicKubernetesObject> r : watch) {
          if ("ERROR".equals(r.type)) {
            break; // e.g. 410 Gone: list again
          }
          if ("DELETED".equals(r.type) && r.object != null) {
            left.remove(r.object.getMetadata().getName());
            if (left.isEmpty()) {
              return left;
            }
          }
        }
      } catch (RuntimeException e) {
        if (!(e.getCause() instanceof IOException)) {
          throw e;
        }
      } finally {
        close(watch);
      }
    }
  }

  private static void close(@Nullable Watchable<?> watch) {
    if (watch != null) {
      try {
        watch.close();
      } catch (IOException | RuntimeException ignored) {
        // closing a finished watch
      }
    }
  }
}
