package dev.capstan.k8s;

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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One wait of {@link HealthWatch}, as three stages, each handing the next what it found: {@link
 * #plan} (which objects need reading, and how: by a LIST of their kind and namespace, or from the
 * answer to this adapter's write), {@link #read} (those LISTs, the first verdict), and {@link
 * #follow} (the WATCHes from what was read, the pods of workloads in progress after the grace, and
 * the ReplicaSets of a namespace once one of its pods cannot become ready or waits for the
 * scheduler, until a verdict or the deadline). Used once.
 */
final class HealthWait {
  private final DynamicApis apis;
  private final WrittenObjects writes;
  private final VolumeBindings bindings;
  private final LongSupplier nanos;
  private final ResumableWatch.Pause pause;
  private final ReadinessWait wait;
  private final long begin;
  private final long deadline;
  private final long podsAt;
  private final LongSupplier clock;
  private final Map<HealthFeed.Scope, DynamicApis.Api> scopeApis = new HashMap<>();

  /**
   * Namespaces with a Deployment in progress: their ReplicaSets are watched once a pod fails or
   * waits for the scheduler.
   */
  private final Set<String> rsNamespaces = new TreeSet<>();

  /** The label selector of the pods (and ReplicaSets) watched in each namespace. */
  private final Map<String, @Nullable String> selectors = new HashMap<>();

  HealthWait(
      DynamicApis apis,
      WrittenObjects writes,
      VolumeBindings bindings,
      LongSupplier nanos,
      ResumableWatch.Pause pause,
      Duration podsGrace,
      ReadinessWait wait) {
    this.apis = apis;
    this.writes = writes;
    this.bindings = bindings;
    this.nanos = nanos;
    this.pause = pause;
    this.wait = wait;
    this.begin = nanos.getAsLong();
    this.deadline = begin + wait.timeout().toNanos();
    this.podsAt = begin + podsGrace.toNanos();
    this.clock = () -> nanos.getAsLong() - begin;
  }

  /**
   * What the first stage decided: the objects with a LIST of each scope's names, those followed
   * from the answer to their write, and every object waited for.
   */
  private record Plan(
      Map<HealthFeed.Scope, Set<String>> listed,
      Map<ResourceRef, JsonObject> fromWrite,
      Set<ResourceRef> watched) {}

  /**
   * What the LISTs found: each scope's resourceVersion, the objects followed from this adapter's
   * write, and when they were read.
   */
  private record Read(
      Map<HealthFeed.Scope, @Nullable String> versions, List<ResourceRef> histories, Instant at) {}

  /** Waits for {@code refs}. */
  Readiness run(List<ResourceRef> refs) {
    Plan plan = plan(refs);
    if (plan.watched().isEmpty()) {
      return Readiness.ready();
    }
    HealthWaitState state =
        new HealthWaitState(
            new WaveHealth(
                List.copyOf(plan.watched()),
                wait.waitForLoadBalancer(),
                Instant.EPOCH,
                wait.health()),
            bindings);
    Read read = read(plan, state);
    state.judge(read.at());
    Readiness verdict = state.wave.decide(read.at());
    return verdict != null ? verdict : follow(plan, read, state);
  }

  /**
   * The objects with a health rule, less the Services current as written; a workload just written
   * alone of its kind in its namespace here is taken as its write was answered (no LIST), and needs
   * no reading at all when it was current then.
   */
  private Plan plan(List<ResourceRef> refs) {
    Map<HealthFeed.Scope, Set<String>> groups = new LinkedHashMap<>();
    List<ResourceRef> ordered = new ArrayList<>(refs);
    ordered.sort(ResourceRef.APPLY_ORDER);
    Set<ResourceRef> watched = new LinkedHashSet<>();
    for (ResourceRef ref : ordered) {
      if (HealthRules.hasRule(ref.kind().group(), ref.kind().kind())
          && !writes.currentAsWritten(ref, wait)
          && watched.add(ref)) {
        groups
            .computeIfAbsent(
                new HealthFeed.Scope(ref.kind(), ref.namespace()), s -> new TreeSet<>())
            .add(ref.name());
      }
    }
    Map<ResourceRef, JsonObject> fromWrite = new LinkedHashMap<>();
    for (Map.Entry<HealthFeed.Scope, Set<String>> g : new ArrayList<>(groups.entrySet())) {
      if (g.getValue().size() != 1) {
        continue;
      }
      ResourceRef ref =
          ResourceRef.of(g.getKey().kind(), g.getKey().namespace(), g.getValue().iterator().next());
      JsonObject answered = writes.answeredAsWritten(ref, wait);
      if (answered == null) {
        continue;
      }
      groups.remove(g.getKey());
      if (WrittenObjects.current(
          JsonTrees.toJava(answered), wait.waitForLoadBalancer(), wait.health())) {
        watched.remove(ref); // current as answered: nothing to read
      } else {
        fromWrite.put(ref, answered);
      }
    }
    return new Plan(groups, fromWrite, watched);
  }

  /**
   * Takes the answers to the writes planned, and LISTs each scope planned: an object a LIST does
   * not find is followed from this adapter's write of it, or missing when this adapter did not
   * write it.
   */
  private Read read(Plan plan, HealthWaitState state) {
    Map<HealthFeed.Scope, @Nullable String> versions = new HashMap<>();
    List<ResourceRef> histories = new ArrayList<>();
    plan.fromWrite()
        .forEach(
            (ref, answered) -> {
              DynamicApis.Api api = api(new HealthFeed.Scope(ref.kind(), ref.namespace()));
              state.objects.put(ref, api.typed(answered));
              histories.add(ref);
              state.followed.add(ref);
            });
    Instant now = state.at(clock);
    for (Map.Entry<HealthFeed.Scope, Set<String>> g : plan.listed().entrySet()) {
      HealthFeed.Scope scope = g.getKey();
      DynamicApis.Api api = api(scope);
      ResourceApi.Listing<JsonObject> listed =
          api.calls.listingRaw(
              scope.namespace(),
              null,
              field(g.getValue()),
              ResourceApi.PAGE_SIZE,
              DynamicApis.named(g.getValue()));
      versions.put(scope, listed.resourceVersion());
      for (JsonObject o : listed.items()) {
        state.object(scope.kind(), api.typed(o));
      }
      for (String name : g.getValue()) {
        ResourceRef ref = ResourceRef.of(scope.kind(), scope.namespace(), name);
        if (!state.objects.containsKey(ref)) {
          if (writes.wrote(ref)) {
            histories.add(ref);
            state.followed.add(ref);
          } else {
            state.wave.missing(ref, null, now);
          }
        }
      }
    }
    return new Read(versions, histories, now);
  }

  /**
   * WATCHes what is still pending from where the reads left it, and judges each batch of updates
   * until a verdict, reporting progress when it is due.
   */
  private Readiness follow(Plan plan, Read read, HealthWaitState state) {
    Set<ResourceRef> watched = plan.watched();
    try (WatchLoop<HealthFeed.Event> loop =
        new WatchLoop<>(
            nanos, pause, HealthFeed.Event::update, () -> interrupted(state, watched))) {
      for (Map.Entry<HealthFeed.Scope, Set<String>> g : plan.listed().entrySet()) {
        HealthFeed.Scope scope = g.getKey();
        if (state.pendingIn(scope)) {
          watch(
              loop,
              new HealthFeed(HealthFeed.Role.OBJECTS, scope, null),
              Objects.requireNonNull(scopeApis.get(scope)),
              null,
              field(g.getValue()),
              read.versions().get(scope),
              DynamicApis.named(g.getValue()));
        }
      }
      for (ResourceRef ref : read.histories()) {
        String written = writes.version(ref);
        if (written == null) {
          state.wave.missing(ref, null, read.at());
          continue;
        }
        HealthFeed.Scope scope = new HealthFeed.Scope(ref.kind(), ref.namespace());
        watch(
            loop,
            new HealthFeed(HealthFeed.Role.HISTORY, scope, ref),
            Objects.requireNonNull(scopeApis.get(scope)),
            null,
            "metadata.name=" + ref.name(),
            written,
            o -> true);
      }
      boolean podsWatched = podsAt == begin;
      if (podsWatched) {
        watchPods(state, loop);
      }
      loop.start();
      while (true) {
        Instant now = state.at(clock);
        Readiness verdict = state.wave.decide(now);
        if (verdict != null) {
          return verdict;
        }
        if (wait.stopAsked()) {
          return Readiness.stopped(List.copyOf(watched));
        }
        Readiness.Progress progress = state.wave.progress(now);
        if (progress != null) {
          wait.progress().accept(progress);
        }
        if (!podsWatched && nanos.getAsLong() - podsAt >= 0) {
          watchPods(state, loop);
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
        List<HealthFeed.Event> batch = loop.next(Math.min(deadline, wake));
        if (batch.isEmpty()) {
          continue;
        }
        now = state.at(clock);
        for (HealthFeed.Event e : batch) {
          loop.check(e);
          state.apply(e, now);
          String ns = replicaSetsNeeded(e, rsNamespaces);
          if (ns != null) {
            rsNamespaces.remove(ns);
            watch(
                loop,
                new HealthFeed(
                    HealthFeed.Role.REPLICA_SETS, new HealthFeed.Scope(Kind.REPLICA_SET, ns), null),
                apis.api(DynamicApis.REPLICA_SETS),
                selectors.get(ns),
                null,
                null,
                o -> true);
          }
        }
        state.judge(now);
      }
    }
    return state.wave.timedOut(wait.timeout());
  }

  /**
   * Watches the pods of every namespace with a workload still in progress (of the one workload in
   * progress there only, by its selector), and notes the namespaces with a Deployment in progress,
   * whose ReplicaSets are watched once a pod cannot become ready or waits for the scheduler.
   */
  private void watchPods(HealthWaitState state, WatchLoop<HealthFeed.Event> loop) {
    Map<String, List<ResourceRef>> workloads = new TreeMap<>();
    for (ResourceRef ref : state.wave.pending()) {
      String key = ref.kind().group() + "/" + ref.kind().kind();
      if (HealthWaitState.WORKLOADS.contains(key)) {
        workloads.computeIfAbsent(ref.namespace(), n -> new ArrayList<>()).add(ref);
        if (key.equals("apps/Deployment")) {
          rsNamespaces.add(ref.namespace());
        }
      }
    }
    workloads.forEach(
        (ns, inProgress) -> {
          JsonObject only = inProgress.size() == 1 ? state.objects.get(inProgress.get(0)) : null;
          selectors.put(ns, only == null ? null : LabelSelectors.of(only));
        });
    for (String ns : workloads.keySet()) {
      watch(
          loop,
          new HealthFeed(HealthFeed.Role.PODS, new HealthFeed.Scope(Kind.POD, ns), null),
          apis.api(DynamicApis.PODS),
          selectors.get(ns),
          null,
          null,
          o -> true);
    }
  }

  /** The API of {@code scope}'s kind, kept for its WATCH. */
  private DynamicApis.Api api(HealthFeed.Scope scope) {
    DynamicApis.Api api =
        apis.api(
            apis.resolve(scope.kind())
                .orElseThrow(
                    () ->
                        new KubeFailure(
                                404,
                                "NotFound",
                                "the cluster does not serve " + scope.kind().key(),
                                null)
                            .toException("watch", scope.kind().key(), scope.namespace(), null)));
    scopeApis.put(scope, api);
    return api;
  }

  private static @Nullable String field(Set<String> names) {
    return names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
  }

  /**
   * Watches {@code feed} from {@code from}; when the watch must list again (a 410, an early end),
   * the LIST keeps only the objects {@code keep} accepts: a kind's relist covers its namespace when
   * the feed follows several names, and the namespace's other objects of that kind are read past.
   */
  private void watch(
      WatchLoop<HealthFeed.Event> loop,
      HealthFeed feed,
      DynamicApis.Api api,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      @Nullable String from,
      Predicate<JsonObject> keep) {
    String namespace = feed.scope().namespace();
    ResumableWatch.Source<DynamicKubernetesObject> source =
        ResumableWatch.Source.of(
            api.calls,
            namespace,
            labelSelector,
            fieldSelector,
            () -> {
              ResourceApi.Listing<JsonObject> listed =
                  api.calls.listingRaw(
                      namespace, labelSelector, fieldSelector, ResourceApi.PAGE_SIZE, keep);
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
          return new HealthFeed.Event(feed, update);
        });
  }

  /** The failure of a wait whose thread is interrupted: about its first pending object. */
  private static RuntimeException interrupted(HealthWaitState state, Set<ResourceRef> watched) {
    List<ResourceRef> pending = state.wave.pending();
    ResourceRef first = pending.isEmpty() ? watched.iterator().next() : pending.get(0);
    return new KubeFailure(0, "", "interrupted", null)
        .toException("watch", first.kind().kind(), first.namespace(), null);
  }

  /**
   * The namespace whose ReplicaSets must be watched now: the pod of {@code event} is one a verdict
   * names (it cannot become ready, or the scheduler holds it back) and its namespace has a
   * Deployment in progress whose ReplicaSets are not yet watched.
   */
  private static @Nullable String replicaSetsNeeded(HealthFeed.Event event, Set<String> unwatched) {
    if (event.feed().role() != HealthFeed.Role.PODS
        || !(event.update() instanceof ResumableWatch.Update.Changed<DynamicKubernetesObject> c)
        || c.type().equals("DELETED")) {
      return null;
    }
    JsonObject pod = c.object().getRaw();
    String ns = JsonTrees.text(pod, "metadata", "namespace");
    return ns != null
            && unwatched.contains(ns)
            && HealthRules.podNamedInVerdict(JsonTrees.toJava(pod))
        ? ns
        : null;
  }
}
