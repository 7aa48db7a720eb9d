package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Waits for objects of any kind to be healthy by watching, never polling, judging them with {@link
 * WaveHealth} (the rules of {@link HealthRules}, kstatus semantics, and the time rules of one
 * wait). Kinds without a rule are healthy at once, with no request. For the others, per kind and
 * namespace: one LIST decides at once when everything is already healthy (the usual case for a cast
 * that changed little); otherwise a {@link ResumableWatch} of that kind and namespace from the
 * LIST's resourceVersion (so nothing between the LIST and the WATCH is lost; a 410 or a broken
 * watch LISTs again), run by the {@link WatchLoop} with the platform update's waits, plus, in a
 * namespace with a workload still in progress {@link #PODS_GRACE} after the wait began, a WATCH of
 * its pods (only the workload's, by its selector, when it is the one in progress there), until
 * every object is current, one failed, or the time is up. A workload that rolls out (Deployment,
 * StatefulSet, DaemonSet) that the wait is told was just written, alone of its kind in its
 * namespace in the wait, needs no LIST: the API server's answer to the write is its state then, so
 * it is current at once, or followed from that write's resourceVersion by one WATCH selecting it by
 * name. A {@code DELETED} event is judged by the object's last state (a Job its TTL removed after
 * it completed is healthy; anything else that was not done fails at once, naming it).
 *
 * <p>An object absent from the first LIST that this adapter wrote (it remembers the resourceVersion
 * of its last write of each object with a health rule) may have finished and been removed before
 * the LIST (a Job with {@code ttlSecondsAfterFinished: 0}): its events since that write are watched
 * from the write's resourceVersion, one WATCH selecting it by name, and its {@code DELETED} event
 * is judged as above; if the server no longer keeps that far back (410), it fails as not found. An
 * absent object this adapter did not write fails at once, not found.
 *
 * <p>A workload's pods are those it owns (a Deployment's: those of the ReplicaSet of its current
 * revision), so old pods of a crashing revision never fail the rollout that replaces them. A
 * Deployment is judged from its own status ({@code observedGeneration}, updated and available
 * replicas, conditions, as {@code kubectl rollout status} does); its pods only add the reason to
 * fail early. So the WATCH of the ReplicaSets, needed to tell a pod of the current revision from an
 * old one, opens only once a pod in the namespace {@linkplain HealthRules#podCannotBecomeReady
 * cannot become ready} while a Deployment there is in progress: a rollout of a Deployment just
 * written that goes well costs one WATCH of it, and a WATCH of its pods if it takes longer than the
 * grace.
 *
 * <p>While it waits, the wait's progress listener hears what is pending and why, when {@link
 * WaveHealth#progress} says a report is due.
 */
final class HealthWatch {
  private static final Set<String> WORKLOADS =
      Set.of(
          "apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "batch/Job");

  /** How many writes are remembered for the objects a LIST no longer finds. */
  private static final int WRITES_KEPT = 10_000;

  /** The workloads that roll out, whose answer to a write says whether they are current. */
  private static final Set<Kind> ROLLING =
      Set.of(Kind.DEPLOYMENT, Kind.STATEFUL_SET, Kind.DAEMON_SET);

  /** How many answers to writes of {@link #ROLLING} workloads are remembered. */
  private static final int ANSWERS_KEPT = 1_000;

  /**
   * How long a wait gives a workload in progress before it watches its pods: a rollout that goes
   * well is usually done by then, and needs no WATCH of pods; one that is not done by then has them
   * watched, each pod's state then sent first, so a pod that cannot become ready still fails the
   * wait early.
   */
  static final Duration PODS_GRACE = Duration.ofSeconds(2);

  private final DynamicApis apis;
  private final LongSupplier nanos;
  private final ResumableWatch.Pause pause;
  private final Duration podsGrace;
  private final Map<String, HealthRules.VolumeBinding> bindings = new ConcurrentHashMap<>();
  private volatile @Nullable String defaultClass;
  private volatile boolean classesRead;

  /** The resourceVersion of this adapter's last write of each object with a rule. */
  private final Map<ResourceRef, String> writes = lastWrites(WRITES_KEPT);

  HealthWatch(DynamicApis apis) {
    this(apis, System::nanoTime, ResumableWatch::sleep, PODS_GRACE);
  }

  /**
   * A health watch on a given clock, pause between watches and grace before pods are watched (for
   * tests).
   */
  HealthWatch(
      DynamicApis apis, LongSupplier nanos, ResumableWatch.Pause pause, Duration podsGrace) {
    this.apis = apis;
    this.nanos = nanos;
    this.pause = pause;
    this.podsGrace = podsGrace;
  }

  private record Scope(Kind kind, String namespace) {}

  /** What a stream of updates is about. */
  private enum Role {
    /** The objects of a scope. */
    OBJECTS,
    /** One object's events since this adapter wrote it. */
    HISTORY,
    /** The pods of a namespace. */
    PODS,
    /** The ReplicaSets of a namespace. */
    REPLICA_SETS
  }

  private record Feed(Role role, Scope scope, @Nullable ResourceRef ref) {}

  private record Event(Feed feed, ResumableWatch.Update<DynamicKubernetesObject> update) {}

  /**
   * Whether a Service was current as this adapter's write of it was answered, waiting for a load
   * balancer's address or not.
   */
  private record ServiceAtWrite(boolean current, boolean currentWithoutLoadBalancer) {}

  /** The Services this adapter wrote, as their last writes were answered. */
  private final Map<ResourceRef, ServiceAtWrite> services = lastWrites(WRITES_KEPT);

  /** The {@link #ROLLING} workloads this adapter wrote, as their last writes were answered. */
  private final Map<ResourceRef, JsonObject> answers = lastWrites(ANSWERS_KEPT);

  /** A thread-safe map of the {@code kept} objects written last. */
  private static <V> Map<ResourceRef, V> lastWrites(int kept) {
    return Collections.synchronizedMap(
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<ResourceRef, V> eldest) {
            return size() > kept;
          }
        });
  }

  /**
   * Remembers this adapter's write of {@code ref}: the resourceVersion the API server answered it
   * with and, for a Service, whether the object it {@code answered} was current, for a workload
   * that rolls out (Deployment, StatefulSet, DaemonSet) the object it answered: a wait that is told
   * the object was just written ({@link ReadinessWait#written()}) takes that for its first read.
   */
  void written(ResourceRef ref, @Nullable String resourceVersion, @Nullable JsonObject answered) {
    if (resourceVersion == null || !HealthRules.hasRule(ref.kind().group(), ref.kind().kind())) {
      return;
    }
    writes.put(ref, resourceVersion);
    if (ROLLING.contains(ref.kind())) {
      if (answered == null) {
        answers.remove(ref);
      } else {
        answers.put(ref, answered);
      }
      return;
    }
    if (!ref.kind().equals(Kind.SERVICE)) {
      return;
    }
    if (answered == null) {
      services.remove(ref);
    } else {
      Map<String, Object> object = JsonTrees.toJava(answered);
      services.put(ref, new ServiceAtWrite(current(object, true), current(object, false)));
    }
  }

  private static boolean current(Map<String, Object> service, boolean waitForLoadBalancer) {
    return HealthRules.of(
            service, List.of(), HealthRules.VolumeBinding.IMMEDIATE, waitForLoadBalancer)
        .isCurrent();
  }

  /**
   * Whether {@code ref} is a Service the wait was told was just written (so its last write here is
   * that one), current as answered.
   */
  private boolean currentAsWritten(ResourceRef ref, ReadinessWait wait) {
    if (!ref.kind().equals(Kind.SERVICE) || !wait.written().contains(ref)) {
      return false;
    }
    ServiceAtWrite at = services.get(ref);
    return at != null
        && (wait.waitForLoadBalancer() ? at.current() : at.currentWithoutLoadBalancer());
  }

  Readiness await(List<ResourceRef> refs, ReadinessWait wait) {
    long begin = nanos.getAsLong();
    long deadline = begin + wait.timeout().toNanos();
    Map<Scope, Set<String>> groups = new LinkedHashMap<>();
    List<ResourceRef> ordered = new ArrayList<>(refs);
    ordered.sort(ResourceRef.APPLY_ORDER);
    Set<ResourceRef> watched = new java.util.LinkedHashSet<>();
    for (ResourceRef ref : ordered) {
      if (HealthRules.hasRule(ref.kind().group(), ref.kind().kind())
          && !currentAsWritten(ref, wait)
          && watched.add(ref)) {
        groups
            .computeIfAbsent(new Scope(ref.kind(), ref.namespace()), s -> new TreeSet<>())
            .add(ref.name());
      }
    }
    Map<ResourceRef, JsonObject> fromWrite = new LinkedHashMap<>();
    for (Map.Entry<Scope, Set<String>> g : new ArrayList<>(groups.entrySet())) {
      if (g.getValue().size() != 1) {
        continue;
      }
      ResourceRef ref =
          ResourceRef.of(g.getKey().kind(), g.getKey().namespace(), g.getValue().iterator().next());
      JsonObject answered = answeredAsWritten(ref, wait);
      if (answered == null) {
        continue;
      }
      groups.remove(g.getKey());
      if (HealthRules.of(
              JsonTrees.toJava(answered),
              List.of(),
              HealthRules.VolumeBinding.IMMEDIATE,
              wait.waitForLoadBalancer())
          .isCurrent()) {
        watched.remove(ref); // current as answered: nothing to read
      } else {
        fromWrite.put(ref, answered);
      }
    }
    if (watched.isEmpty()) {
      return Readiness.ready();
    }
    State state =
        new State(new WaveHealth(List.copyOf(watched), wait.waitForLoadBalancer(), Instant.EPOCH));
    Set<ResourceRef> followed = state.followed;
    LongSupplier clock = () -> nanos.getAsLong() - begin;
    Map<Scope, DynamicApis.Api> scopeApis = new HashMap<>();
    Map<Scope, @Nullable String> versions = new HashMap<>();
    List<ResourceRef> histories = new ArrayList<>();
    // a workload just written, alone of its kind in its namespace here, not current as answered:
    // followed from its write, with no LIST (the answer is its state as of that write)
    fromWrite.forEach(
        (ref, answered) -> {
          Scope scope = new Scope(ref.kind(), ref.namespace());
          DynamicApis.Api api = api(scope);
          scopeApis.put(scope, api);
          state.objects.put(ref, api.typed(answered));
          histories.add(ref);
          followed.add(ref);
        });
    Instant now = state.at(clock);
    for (Map.Entry<Scope, Set<String>> g : groups.entrySet()) {
      Scope scope = g.getKey();
      DynamicApis.Api api = api(scope);
      scopeApis.put(scope, api);
      ResourceApi.Listing<JsonObject> listed =
          api.calls.listingRaw(scope.namespace(), null, field(g.getValue()));
      versions.put(scope, listed.resourceVersion());
      for (JsonObject o : listed.items()) {
        state.object(scope.kind(), api.typed(o));
      }
      for (String name : g.getValue()) {
        ResourceRef ref = ResourceRef.of(scope.kind(), scope.namespace(), name);
        if (!state.objects.containsKey(ref)) {
          if (writes.containsKey(ref)) {
            histories.add(ref);
            followed.add(ref);
          } else {
            state.wave.missing(ref, null, now);
          }
        }
      }
    }
    state.judge(now);
    Readiness verdict = state.wave.decide(now);
    if (verdict != null) {
      return verdict;
    }
    try (WatchLoop<Event> loop =
        new WatchLoop<>(nanos, pause, Event::update, () -> interrupted(state, watched))) {
      for (Map.Entry<Scope, Set<String>> g : groups.entrySet()) {
        Scope scope = g.getKey();
        if (state.pendingIn(scope)) {
          watch(
              loop,
              new Feed(Role.OBJECTS, scope, null),
              java.util.Objects.requireNonNull(scopeApis.get(scope)),
              null,
              field(g.getValue()),
              versions.get(scope),
              deadline);
        }
      }
      for (ResourceRef ref : histories) {
        String written = writes.get(ref);
        if (written == null) {
          state.wave.missing(ref, null, now);
          continue;
        }
        Scope scope = new Scope(ref.kind(), ref.namespace());
        watch(
            loop,
            new Feed(Role.HISTORY, scope, ref),
            java.util.Objects.requireNonNull(scopeApis.get(scope)),
            null,
            "metadata.name=" + ref.name(),
            written,
            deadline);
      }
      // namespaces with a Deployment in progress: their ReplicaSets are watched once a pod fails
      Set<String> rsNamespaces = new TreeSet<>();
      // the label selector of the pods (and ReplicaSets) watched in each namespace
      Map<String, @Nullable String> selectors = new HashMap<>();
      long podsAt = begin + podsGrace.toNanos();
      boolean podsWatched = podsGrace.isZero();
      if (podsWatched) {
        watchPods(state, loop, selectors, rsNamespaces, deadline);
      }
      loop.start();
      while (true) {
        now = state.at(clock);
        verdict = state.wave.decide(now);
        if (verdict != null) {
          return verdict;
        }
        if (wait.stopAsked()) {
          return Readiness.stopped(refs);
        }
        Readiness.Progress progress = state.wave.progress(now);
        if (progress != null) {
          wait.progress().accept(progress);
        }
        if (!podsWatched && nanos.getAsLong() - podsAt >= 0) {
          watchPods(state, loop, selectors, rsNamespaces, deadline);
          podsWatched = true;
        }
        long wake = podsWatched ? deadline : Math.min(deadline, podsAt);
        for (Instant next : new Instant[] {state.wave.nextDecision(), state.wave.nextProgress()}) {
          if (next != null) {
            wake = Math.min(wake, begin + Duration.between(Instant.EPOCH, next).toNanos());
          }
        }
        if (deadline - nanos.getAsLong() <= 0) {
          break;
        }
        // asks for a stop at least every STOP_CHECK
        wake = Math.min(wake, nanos.getAsLong() + ReadinessWait.STOP_CHECK.toNanos());
        List<Event> batch = loop.next(Math.min(deadline, wake));
        if (batch.isEmpty()) {
          continue;
        }
        now = state.at(clock);
        for (Event e : batch) {
          loop.check(e);
          state.apply(e, now);
          String ns = replicaSetsNeeded(e, rsNamespaces);
          if (ns != null) {
            rsNamespaces.remove(ns);
            watch(
                loop,
                new Feed(Role.REPLICA_SETS, new Scope(Kind.REPLICA_SET, ns), null),
                apis.api(DynamicApis.REPLICA_SETS),
                selectors.get(ns),
                null,
                null,
                deadline);
          }
        }
        state.judge(now);
      }
    }
    return state.wave.timedOut(wait.timeout());
  }

  /**
   * The answer to this adapter's write of {@code ref}, when the wait was told it was just written
   * and it is a workload that rolls out ({@link #ROLLING}) whose write's answer and version are
   * known; else {@code null}.
   */
  private @Nullable JsonObject answeredAsWritten(ResourceRef ref, ReadinessWait wait) {
    if (!ROLLING.contains(ref.kind())
        || !wait.written().contains(ref)
        || !writes.containsKey(ref)) {
      return null;
    }
    JsonObject answered = answers.get(ref);
    return answered == null ? null : answered.deepCopy();
  }

  /**
   * Watches the pods of every namespace with a workload still in progress (of the one workload in
   * progress there only, by its selector), and notes the namespaces with a Deployment in progress,
   * whose ReplicaSets are watched once a pod cannot become ready.
   */
  private void watchPods(
      State state,
      WatchLoop<Event> loop,
      Map<String, @Nullable String> selectors,
      Set<String> rsNamespaces,
      long deadline) {
    Map<String, List<ResourceRef>> workloads = new TreeMap<>();
    for (ResourceRef ref : state.wave.pending()) {
      String key = ref.kind().group() + "/" + ref.kind().kind();
      if (WORKLOADS.contains(key)) {
        workloads.computeIfAbsent(ref.namespace(), n -> new ArrayList<>()).add(ref);
        if (key.equals("apps/Deployment")) {
          rsNamespaces.add(ref.namespace());
        }
      }
    }
    workloads.forEach(
        (ns, inProgress) -> {
          JsonObject only = inProgress.size() == 1 ? state.objects.get(inProgress.get(0)) : null;
          selectors.put(ns, only == null ? null : labelSelector(only));
        });
    for (String ns : workloads.keySet()) {
      watch(
          loop,
          new Feed(Role.PODS, new Scope(Kind.POD, ns), null),
          apis.api(DynamicApis.PODS),
          selectors.get(ns),
          null,
          null,
          deadline);
    }
  }

  private DynamicApis.Api api(Scope scope) {
    return apis.api(
        apis.resolve(scope.kind())
            .orElseThrow(
                () ->
                    new KubeFailure(
                            404,
                            "NotFound",
                            "the cluster does not serve " + scope.kind().key(),
                            null)
                        .toException("watch", scope.kind().key(), scope.namespace(), null)));
  }

  /**
   * A workload's {@code spec.selector} as a label selector ({@code k=v}, {@code k in (a,b)}, {@code
   * k notin (a)}, {@code k}, {@code !k}, joined by commas), or {@code null} when it has none,
   * selects everything, or holds something this cannot say: then the namespace is watched whole.
   */
  static @Nullable String labelSelector(JsonObject workload) {
    JsonObject selector = JsonTrees.object(JsonTrees.object(workload, "spec"), "selector");
    if (selector == null) {
      return null;
    }
    List<String> terms = new ArrayList<>();
    JsonObject labels = JsonTrees.object(selector, "matchLabels");
    if (labels != null) {
      for (Map.Entry<String, JsonElement> e : new TreeMap<>(labels.asMap()).entrySet()) {
        if (!e.getValue().isJsonPrimitive()) {
          return null;
        }
        terms.add(e.getKey() + "=" + e.getValue().getAsString());
      }
    }
    JsonElement expressions = selector.get("matchExpressions");
    if (expressions != null && expressions.isJsonArray()) {
      for (JsonElement x : expressions.getAsJsonArray()) {
        String term = x.isJsonObject() ? expression(x.getAsJsonObject()) : null;
        if (term == null) {
          return null;
        }
        terms.add(term);
      }
    }
    return terms.isEmpty() ? null : String.join(",", terms);
  }

  private static @Nullable String expression(JsonObject x) {
    String key = JsonTrees.text(x, "key");
    String operator = JsonTrees.text(x, "operator");
    if (key == null || operator == null) {
      return null;
    }
    List<String> values = new ArrayList<>();
    JsonElement given = x.get("values");
    if (given != null && given.isJsonArray()) {
      given.getAsJsonArray().forEach(v -> values.add(v.getAsString()));
    }
    String set = "(" + String.join(",", values) + ")";
    return switch (operator) {
      case "In" -> values.isEmpty() ? null : key + " in " + set;
      case "NotIn" -> values.isEmpty() ? null : key + " notin " + set;
      case "Exists" -> key;
      case "DoesNotExist" -> "!" + key;
      default -> null;
    };
  }

  private static @Nullable String field(Set<String> names) {
    return names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
  }

  private void watch(
      WatchLoop<Event> loop,
      Feed feed,
      DynamicApis.Api api,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      @Nullable String from,
      long deadline) {
    String namespace = feed.scope().namespace();
    ResumableWatch.Source<DynamicKubernetesObject> source =
        ResumableWatch.Source.of(
            api.calls,
            namespace,
            labelSelector,
            fieldSelector,
            () -> {
              ResourceApi.Listing<JsonObject> listed =
                  api.calls.listingRaw(namespace, labelSelector, fieldSelector);
              List<DynamicKubernetesObject> items = new ArrayList<>();
              listed.items().forEach(o -> items.add(new DynamicKubernetesObject(api.typed(o))));
              return new ResourceApi.Listing<>(items, listed.resourceVersion());
            });
    loop.watch(
        api.resource.plural() + "-" + namespace,
        source,
        from,
        deadline,
        update -> {
          if (update instanceof ResumableWatch.Update.Changed<DynamicKubernetesObject> c) {
            api.typed(c.object().getRaw()); // judged objects need their apiVersion and kind
          }
          return new Event(feed, update);
        });
  }

  /** The failure of a wait whose thread is interrupted: about its first pending object. */
  private static RuntimeException interrupted(State state, Set<ResourceRef> watched) {
    List<ResourceRef> pending = state.wave.pending();
    ResourceRef first = pending.isEmpty() ? watched.iterator().next() : pending.get(0);
    return new KubeFailure(0, "", "interrupted", null)
        .toException("watch", first.kind().kind(), first.namespace(), null);
  }

  /**
   * The namespace whose ReplicaSets must be watched now: the pod of {@code event} cannot become
   * ready and its namespace has a Deployment in progress whose ReplicaSets are not yet watched.
   */
  private static @Nullable String replicaSetsNeeded(Event event, Set<String> unwatched) {
    if (event.feed().role() != Role.PODS
        || !(event.update() instanceof ResumableWatch.Update.Changed<DynamicKubernetesObject> c)
        || c.type().equals("DELETED")) {
      return null;
    }
    JsonObject pod = c.object().getRaw();
    String ns = JsonTrees.text(pod, "metadata", "namespace");
    return ns != null
            && unwatched.contains(ns)
            && HealthRules.podCannotBecomeReady(JsonTrees.toJava(pod))
        ? ns
        : null;
  }

  /** What the wait has seen, and its verdicts. */
  private final class State {
    final WaveHealth wave;
    final Set<ResourceRef> refs;
    final Map<ResourceRef, JsonObject> objects = new HashMap<>();

    /**
     * Objects followed from this adapter's write by a history feed: their events are taken from
     * that one ordered stream only.
     */
    final Set<ResourceRef> followed = new java.util.HashSet<>();

    final Map<String, Map<String, JsonObject>> pods = new HashMap<>();
    final Map<String, Map<String, JsonObject>> replicaSets = new HashMap<>();

    State(WaveHealth wave) {
      this.wave = wave;
      this.refs = new java.util.LinkedHashSet<>(wave.objects());
    }

    Instant at(LongSupplier elapsed) {
      return Instant.EPOCH.plusNanos(elapsed.getAsLong());
    }

    /** The ref of {@code o} when it is one waited for. */
    @Nullable ResourceRef ref(Kind kind, JsonObject o) {
      String namespace = JsonTrees.text(o, "metadata", "namespace");
      String name = JsonTrees.text(o, "metadata", "name");
      if (name == null) {
        return null;
      }
      ResourceRef ref = ResourceRef.of(kind, namespace == null ? "" : namespace, name);
      return refs.contains(ref) ? ref : null;
    }

    void object(Kind kind, JsonObject o) {
      ResourceRef ref = ref(kind, o);
      if (ref != null) {
        objects.put(ref, o);
      }
    }

    void apply(Event e, Instant now) {
      Feed feed = e.feed();
      switch (feed.role()) {
        case OBJECTS, HISTORY -> objectUpdate(feed, e.update(), now);
        case PODS -> namespaced(pods, feed, e.update());
        case REPLICA_SETS -> namespaced(replicaSets, feed, e.update());
      }
    }

    private void objectUpdate(
        Feed feed, ResumableWatch.Update<DynamicKubernetesObject> update, Instant now) {
      Kind kind = feed.scope().kind();
      boolean history = feed.role() == Role.HISTORY;
      if (update instanceof ResumableWatch.Update.Changed<DynamicKubernetesObject> c) {
        JsonObject o = c.object().getRaw();
        ResourceRef ref = ref(kind, o);
        if (ref == null || (history ? !ref.equals(feed.ref()) : followed.contains(ref))) {
          return;
        }
        if (c.type().equals("DELETED")) {
          JsonObject known = objects.get(ref);
          String knownUid = known == null ? null : JsonTrees.text(known, "metadata", "uid");
          String uid = JsonTrees.text(o, "metadata", "uid");
          if (knownUid != null && uid != null && !knownUid.equals(uid)) {
            return; // a deletion of an earlier object of that name
          }
          objects.remove(ref);
          wave.deleted(ref, JsonTrees.toJava(o), now);
        } else {
          objects.put(ref, o);
        }
      } else if (update instanceof ResumableWatch.Update.Relisted<DynamicKubernetesObject> r) {
        Set<ResourceRef> present = new java.util.HashSet<>();
        for (DynamicKubernetesObject item : r.items()) {
          JsonObject o = item.getRaw();
          ResourceRef ref = ref(kind, o);
          if (ref != null && (history ? ref.equals(feed.ref()) : !followed.contains(ref))) {
            present.add(ref);
            objects.put(ref, o);
          }
        }
        for (ResourceRef ref : refs) {
          boolean inFeed =
              history
                  ? ref.equals(feed.ref())
                  : ref.kind().equals(kind)
                      && ref.namespace().equals(feed.scope().namespace())
                      && !followed.contains(ref);
          if (!inFeed || present.contains(ref) || wave.isCurrent(ref)) {
            continue;
          }
          JsonObject last = objects.remove(ref);
          if (last != null) {
            wave.deleted(ref, JsonTrees.toJava(last), now);
          } else if (history) {
            wave.missing(ref, "deleted since it was applied; its last state is not known", now);
          }
        }
      }
    }

    private void namespaced(
        Map<String, Map<String, JsonObject>> target,
        Feed feed,
        ResumableWatch.Update<DynamicKubernetesObject> update) {
      Map<String, JsonObject> byName =
          target.computeIfAbsent(feed.scope().namespace(), n -> new HashMap<>());
      if (update instanceof ResumableWatch.Update.Changed<DynamicKubernetesObject> c) {
        JsonObject o = c.object().getRaw();
        String name = JsonTrees.text(o, "metadata", "name");
        if (name == null) {
          return;
        }
        if (c.type().equals("DELETED")) {
          byName.remove(name);
        } else {
          byName.put(name, o);
        }
      } else if (update instanceof ResumableWatch.Update.Relisted<DynamicKubernetesObject> r) {
        byName.clear();
        for (DynamicKubernetesObject item : r.items()) {
          String name = JsonTrees.text(item.getRaw(), "metadata", "name");
          if (name != null) {
            byName.put(name, item.getRaw());
          }
        }
      }
    }

    /** Judges every object seen that is not current yet. */
    void judge(Instant now) {
      for (ResourceRef ref : wave.pending()) {
        JsonObject o = objects.get(ref);
        if (o != null) {
          wave.observe(ref, JsonTrees.toJava(o), podsOf(ref, o), binding(ref, o), now);
        }
      }
    }

    /** Whether an object of {@code scope} that no history follows is still pending. */
    boolean pendingIn(Scope scope) {
      return wave.pending().stream()
          .anyMatch(
              r ->
                  r.kind().equals(scope.kind())
                      && r.namespace().equals(scope.namespace())
                      && !followed.contains(r));
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
}
