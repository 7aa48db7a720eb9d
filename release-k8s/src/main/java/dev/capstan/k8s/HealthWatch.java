package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.release.health.Health;
import dev.capstan.release.health.HealthRules;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Waits for objects of any kind to be healthy by watching, never polling, judging each with {@link
 * HealthRules} (kstatus semantics). Kinds without a rule are healthy at once, with no request. For
 * the others, per kind and namespace: one LIST decides at once when everything is already healthy
 * (the usual case for a cast that changed little); otherwise a WATCH of that kind and namespace,
 * plus, in a namespace with a workload still in progress, a WATCH of its pods, until every object
 * is current, one failed, or the time is up. A workload's pods are those it owns (a Deployment's:
 * those of the ReplicaSet of its current revision), so old pods of a crashing revision never fail
 * the rollout that replaces them.
 *
 * <p>A Deployment is judged from its own status ({@code observedGeneration}, updated and available
 * replicas, conditions, as {@code kubectl rollout status} does); its pods only add the reason to
 * fail early. So the WATCH of the ReplicaSets, needed to tell a pod of the current revision from an
 * old one, opens only once a pod in the namespace {@linkplain HealthRules#podCannotBecomeReady
 * cannot become ready} while a Deployment there is in progress: a rollout that goes well costs a
 * LIST and a WATCH of the Deployments and a WATCH of the pods (the ReplicaSets' initial events,
 * when their watch does open, come before any verdict that needs them).
 */
final class HealthWatch {
  private static final int MAX_WATCH_SECONDS = 300;
  private static final int WATCH_RETRIES = 5;
  private static final Set<String> WORKLOADS =
      Set.of(
          "apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "batch/Job");

  private final DynamicApis apis;
  private final Map<String, HealthRules.VolumeBinding> bindings = new ConcurrentHashMap<>();
  private volatile @Nullable String defaultClass;
  private volatile boolean classesRead;

  HealthWatch(DynamicApis apis) {
    this.apis = apis;
  }

  private record Scope(Kind kind, String namespace) {}

  private record Event(String stream, String type, JsonObject object) {}

  Readiness await(List<ResourceRef> refs, Duration timeout) {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    Map<Scope, Set<String>> groups = new LinkedHashMap<>();
    List<ResourceRef> ordered = new ArrayList<>(refs);
    ordered.sort(ResourceRef.APPLY_ORDER);
    List<ResourceRef> watched = new ArrayList<>();
    for (ResourceRef ref : ordered) {
      if (HealthRules.hasRule(ref.kind().group(), ref.kind().kind())) {
        groups
            .computeIfAbsent(new Scope(ref.kind(), ref.namespace()), s -> new TreeSet<>())
            .add(ref.name());
        watched.add(ref);
      }
    }
    if (watched.isEmpty()) {
      return Readiness.ready();
    }
    State state = new State(watched);
    Map<Scope, DynamicApis.Api> scopeApis = new HashMap<>();
    for (Map.Entry<Scope, Set<String>> g : groups.entrySet()) {
      Scope scope = g.getKey();
      DynamicApis.Api api =
          apis.api(
              apis.resolve(scope.kind())
                  .orElseThrow(
                      () ->
                          Errors.RELEASE.translate(
                              "watch",
                              scope.kind().key(),
                              scope.namespace(),
                              null,
                              new KubeFailure(
                                  404,
                                  "NotFound",
                                  "the cluster does not serve " + scope.kind().key(),
                                  null))));
      scopeApis.put(scope, api);
      String field =
          g.getValue().size() == 1 ? "metadata.name=" + g.getValue().iterator().next() : null;
      for (JsonObject o : api.list(scope.namespace(), null, field)) {
        state.object(scope.kind(), o);
      }
    }
    Readiness verdict = state.evaluate();
    if (verdict != null) {
      return verdict;
    }
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    List<WatchLoop> loops = new ArrayList<>();
    for (Map.Entry<Scope, Set<String>> g : groups.entrySet()) {
      Scope scope = g.getKey();
      if (state.pendingIn(scope)) {
        String field =
            g.getValue().size() == 1 ? "metadata.name=" + g.getValue().iterator().next() : null;
        loops.add(
            new WatchLoop(
                scope.kind().key(),
                java.util.Objects.requireNonNull(scopeApis.get(scope)),
                scope.namespace(),
                field,
                deadline,
                events));
      }
    }
    Set<String> podNamespaces = new TreeSet<>();
    // namespaces with a Deployment in progress: their ReplicaSets are watched once a pod fails
    Set<String> rsNamespaces = new TreeSet<>();
    for (ResourceRef ref : state.pending()) {
      String key = ref.kind().group() + "/" + ref.kind().kind();
      if (WORKLOADS.contains(key)) {
        podNamespaces.add(ref.namespace());
        if (key.equals("apps/Deployment")) {
          rsNamespaces.add(ref.namespace());
        }
      }
    }
    for (String ns : podNamespaces) {
      loops.add(new WatchLoop("pods", apis.api(DynamicApis.PODS), ns, null, deadline, events));
    }
    loops.forEach(WatchLoop::start);
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        Object first = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
        if (first == null) {
          break;
        }
        List<Object> batch = new ArrayList<>();
        batch.add(first);
        events.drainTo(batch);
        for (Object e : batch) {
          if (e instanceof RuntimeException failure) {
            throw failure;
          }
          Event event = (Event) e;
          state.apply(event);
          String ns = replicaSetsNeeded(event, rsNamespaces);
          if (ns != null) {
            rsNamespaces.remove(ns);
            WatchLoop rs =
                new WatchLoop(
                    "replicasets", apis.api(DynamicApis.REPLICA_SETS), ns, null, deadline, events);
            loops.add(rs);
            rs.start();
          }
        }
        verdict = state.evaluate();
        if (verdict != null) {
          return verdict;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      List<ResourceRef> pending = state.pending();
      ResourceRef first = pending.isEmpty() ? watched.get(0) : pending.get(0);
      throw Errors.RELEASE.translate(
          "watch",
          first.kind().kind(),
          first.namespace(),
          null,
          new KubeFailure(0, "", "interrupted", null));
    } finally {
      loops.forEach(WatchLoop::stop);
    }
    return Readiness.timedOut(state.pending(), timeout);
  }

  /**
   * The namespace whose ReplicaSets must be watched now: the pod of {@code event} cannot become
   * ready and its namespace has a Deployment in progress whose ReplicaSets are not yet watched.
   */
  private static @Nullable String replicaSetsNeeded(Event event, Set<String> unwatched) {
    if (!event.stream().equals("pods") || event.type().equals("DELETED")) {
      return null;
    }
    String ns = JsonTrees.text(event.object(), "metadata", "namespace");
    return ns != null
            && unwatched.contains(ns)
            && HealthRules.podCannotBecomeReady(JsonTrees.toJava(event.object()))
        ? ns
        : null;
  }

  /** What the wait has seen. */
  private final class State {
    final List<ResourceRef> refs;
    final Map<ResourceRef, JsonObject> objects = new HashMap<>();
    final Map<ResourceRef, Health> verdicts = new HashMap<>();
    final Map<String, Map<String, JsonObject>> pods = new HashMap<>();
    final Map<String, Map<String, JsonObject>> replicaSets = new HashMap<>();

    State(List<ResourceRef> refs) {
      this.refs = refs;
    }

    void object(Kind kind, JsonObject o) {
      String namespace = JsonTrees.text(o, "metadata", "namespace");
      String name = JsonTrees.text(o, "metadata", "name");
      if (name == null) {
        return;
      }
      ResourceRef ref = ResourceRef.of(kind, namespace == null ? "" : namespace, name);
      if (verdicts.containsKey(ref) || refs.contains(ref)) {
        objects.put(ref, o);
      }
    }

    void apply(Event e) {
      String namespace = JsonTrees.text(e.object(), "metadata", "namespace");
      String name = JsonTrees.text(e.object(), "metadata", "name");
      if (name == null) {
        return;
      }
      boolean deleted = e.type().equals("DELETED");
      if (e.stream().equals("pods") || e.stream().equals("replicasets")) {
        Map<String, Map<String, JsonObject>> target =
            e.stream().equals("pods") ? pods : replicaSets;
        Map<String, JsonObject> byName =
            target.computeIfAbsent(namespace == null ? "" : namespace, n -> new HashMap<>());
        if (deleted) {
          byName.remove(name);
        } else {
          byName.put(name, e.object());
        }
        return;
      }
      for (ResourceRef ref : refs) {
        if (ref.kind().key().equals(e.stream())
            && ref.name().equals(name)
            && ref.namespace().equals(namespace == null ? "" : namespace)) {
          if (deleted) {
            objects.remove(ref);
          } else {
            objects.put(ref, e.object());
          }
        }
      }
    }

    /** The outcome once decided, else {@code null}. */
    @Nullable Readiness evaluate() {
      for (ResourceRef ref : refs) {
        Health h = verdicts.get(ref);
        if (h != null && h.isCurrent()) {
          continue;
        }
        JsonObject o = objects.get(ref);
        if (o == null) {
          h = Health.failed(ref.kind().kind() + " " + name(ref) + ": not found");
        } else {
          h = HealthRules.of(JsonTrees.toJava(o), podsOf(ref, o), binding(ref, o));
        }
        verdicts.put(ref, h);
        if (h.isFailed()) {
          return Readiness.failed(ref, reason(h));
        }
      }
      return pending().isEmpty() ? Readiness.ready() : null;
    }

    boolean pendingIn(Scope scope) {
      return refs.stream()
          .anyMatch(
              r ->
                  r.kind().equals(scope.kind())
                      && r.namespace().equals(scope.namespace())
                      && !current(r));
    }

    private boolean current(ResourceRef r) {
      Health h = verdicts.get(r);
      return h != null && h.isCurrent();
    }

    List<ResourceRef> pending() {
      return refs.stream().filter(r -> !current(r)).toList();
    }

    private List<Map<String, Object>> podsOf(ResourceRef ref, JsonObject o) {
      String key = ref.kind().group() + "/" + ref.kind().kind();
      if (!WORKLOADS.contains(key)) {
        return List.of();
      }
      Map<String, JsonObject> inNamespace = pods.getOrDefault(ref.namespace(), Map.of());
      if (inNamespace.isEmpty()) {
        return List.of();
      }
      String uid = JsonTrees.text(o, "metadata", "uid");
      if (uid == null) {
        return List.of();
      }
      Set<String> owners = new TreeSet<>();
      if (key.equals("apps/Deployment")) {
        String revision = annotation(o, Rollouts.REVISION);
        if (revision == null) {
          return List.of();
        }
        for (JsonObject rs : replicaSets.getOrDefault(ref.namespace(), Map.of()).values()) {
          if (ownedBy(rs, uid) && revision.equals(annotation(rs, Rollouts.REVISION))) {
            String rsUid = JsonTrees.text(rs, "metadata", "uid");
            if (rsUid != null) {
              owners.add(rsUid);
            }
          }
        }
      } else {
        owners.add(uid);
      }
      String updateRevision =
          key.equals("apps/StatefulSet") ? JsonTrees.text(o, "status", "updateRevision") : null;
      List<Map<String, Object>> out = new ArrayList<>();
      for (JsonObject pod : new TreeMap<>(inNamespace).values()) {
        if (owners.stream().anyMatch(u -> ownedBy(pod, u))
            && (updateRevision == null
                || updateRevision.equals(label(pod, "controller-revision-hash")))) {
          out.add(JsonTrees.toJava(pod));
        }
      }
      return out;
    }
  }

  private static String name(ResourceRef ref) {
    return ref.namespace().isEmpty() ? ref.name() : ref.namespace() + "/" + ref.name();
  }

  private static String reason(Health h) {
    return h instanceof Health.Failed f ? f.reason() : h.describe();
  }

  private HealthRules.VolumeBinding binding(ResourceRef ref, JsonObject claim) {
    if (!ref.kind().isVolumeClaim()) {
      return HealthRules.VolumeBinding.IMMEDIATE;
    }
    if (!classesRead) {
      for (JsonObject sc : apis.api(DynamicApis.STORAGE_CLASSES).list(null, null, null)) {
        String name = JsonTrees.text(sc, "metadata", "name");
        if (name == null) {
          continue;
        }
        bindings.put(
            name,
            "WaitForFirstConsumer".equals(JsonTrees.text(sc, "volumeBindingMode"))
                ? HealthRules.VolumeBinding.WAIT_FOR_FIRST_CONSUMER
                : HealthRules.VolumeBinding.IMMEDIATE);
        if ("true".equals(annotation(sc, "storageclass.kubernetes.io/is-default-class"))) {
          defaultClass = name;
        }
      }
      classesRead = true;
    }
    String cls = JsonTrees.text(claim, "spec", "storageClassName");
    if (cls == null) {
      cls = defaultClass;
    }
    return cls == null
        ? HealthRules.VolumeBinding.IMMEDIATE
        : bindings.getOrDefault(cls, HealthRules.VolumeBinding.IMMEDIATE);
  }

  private static @Nullable String annotation(JsonObject o, String key) {
    return JsonTrees.text(JsonTrees.object(JsonTrees.object(o, "metadata"), "annotations"), key);
  }

  private static @Nullable String label(JsonObject o, String key) {
    return JsonTrees.text(JsonTrees.object(JsonTrees.object(o, "metadata"), "labels"), key);
  }

  private static boolean ownedBy(JsonObject o, String uid) {
    JsonObject meta = JsonTrees.object(o, "metadata");
    if (meta == null || !(meta.get("ownerReferences") instanceof JsonArray owners)) {
      return false;
    }
    for (JsonElement e : owners) {
      if (e instanceof JsonObject owner && uid.equals(JsonTrees.text(owner, "uid"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * A watch kept open on its own daemon thread until stopped or the deadline passes, reopened
   * (without a resource version, so it starts again from the current objects) when the server ends
   * it or the connection drops. A failure it cannot recover from is put on the queue.
   */
  private static final class WatchLoop {
    private final String stream;
    private final DynamicApis.Api api;
    private final String namespace;
    private final @Nullable String fieldSelector;
    private final long deadline;
    private final BlockingQueue<Object> events;
    private final Thread thread;
    private volatile boolean stopped;
    private volatile @Nullable Watchable<DynamicKubernetesObject> current;

    WatchLoop(
        String stream,
        DynamicApis.Api api,
        String namespace,
        @Nullable String fieldSelector,
        long deadline,
        BlockingQueue<Object> events) {
      this.stream = stream;
      this.api = api;
      this.namespace = namespace;
      this.fieldSelector = fieldSelector;
      this.deadline = deadline;
      this.events = events;
      this.thread =
          new Thread(this::run, "capstan-watch-" + api.resource.plural() + "-" + namespace);
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() {
      stopped = true;
      closeQuietly(current);
      thread.interrupt();
    }

    private void run() {
      int failures = 0;
      while (!stopped) {
        long left = TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime());
        if (left <= 0) {
          return;
        }
        ListOptions options =
            new ListOptions().timeoutSeconds((int) Math.min(MAX_WATCH_SECONDS, left + 1));
        if (fieldSelector != null) {
          options.setFieldSelector(fieldSelector);
        }
        Watchable<DynamicKubernetesObject> watch = null;
        try {
          watch = api.calls.watch(namespace, options);
          current = watch;
          if (stopped) {
            return;
          }
          for (Watch.Response<DynamicKubernetesObject> r : watch) {
            failures = 0;
            if (r.object != null && !"ERROR".equals(r.type) && !"BOOKMARK".equals(r.type)) {
              events.add(new Event(stream, r.type, api.typed(r.object.getRaw())));
            }
          }
        } catch (RuntimeException e) {
          if (stopped) {
            return;
          }
          boolean transport = e.getCause() instanceof IOException;
          if (!transport || ++failures >= WATCH_RETRIES) {
            events.add(translated(e));
            return;
          }
          pause();
        } finally {
          closeQuietly(watch);
        }
      }
    }

    private RuntimeException translated(RuntimeException e) {
      if (e instanceof dev.capstan.release.ClusterException) {
        return e;
      }
      KubeFailure f = KubeFailure.ofWrapped(e);
      return api.calls.failure(
          "watch",
          namespace,
          null,
          f != null
              ? f
              : new KubeFailure(0, "", e.getClass().getSimpleName() + ": " + e.getMessage(), null));
    }

    private void pause() {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopped = true;
      }
    }

    private static void closeQuietly(@Nullable Watchable<?> watch) {
      if (watch != null) {
        try {
          watch.close();
        } catch (IOException | RuntimeException ignored) {
          // closing a dead connection
        }
      }
    }
  }
}
