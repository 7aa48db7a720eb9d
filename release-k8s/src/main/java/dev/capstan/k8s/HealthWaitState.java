package dev.capstan.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What one health wait has seen of its objects, their pods and ReplicaSets, and its verdicts: the
 * updates of its feeds are applied here, and the objects not yet current judged by {@link
 * WaveHealth}, a workload with the pods of its current revision.
 */
final class HealthWaitState {
  /** The kinds whose pods are judged with them. */
  static final Set<String> WORKLOADS =
      Set.of(
          "apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "batch/Job");

  final WaveHealth wave;
  private final VolumeBindings bindings;
  private final Set<ResourceRef> refs;
  final Map<ResourceRef, JsonObject> objects = new HashMap<>();

  /**
   * Objects followed from this adapter's write by a history feed: their events are taken from that
   * one ordered stream only.
   */
  final Set<ResourceRef> followed = new HashSet<>();

  private final Map<String, Map<String, JsonObject>> pods = new HashMap<>();
  private final Map<String, Map<String, JsonObject>> replicaSets = new HashMap<>();

  HealthWaitState(WaveHealth wave, VolumeBindings bindings) {
    this.wave = wave;
    this.bindings = bindings;
    this.refs = new LinkedHashSet<>(wave.objects());
  }

  /** The wait's time now, its start being the epoch. */
  Instant at(LongSupplier elapsed) {
    return Instant.EPOCH.plusNanos(elapsed.getAsLong());
  }

  /** The ref of {@code o} when it is one waited for. */
  private @Nullable ResourceRef ref(Kind kind, JsonObject o) {
    String namespace = JsonTrees.text(o, "metadata", "namespace");
    String name = JsonTrees.text(o, "metadata", "name");
    if (name == null) {
      return null;
    }
    ResourceRef ref = ResourceRef.of(kind, namespace == null ? "" : namespace, name);
    return refs.contains(ref) ? ref : null;
  }

  /** Takes {@code o}, as a LIST found it, when it is one waited for. */
  void object(Kind kind, JsonObject o) {
    ResourceRef ref = ref(kind, o);
    if (ref != null) {
      objects.put(ref, o);
    }
  }

  /** Applies an update of one of the wait's feeds. */
  void apply(HealthFeed.Event e, Instant now) {
    HealthFeed feed = e.feed();
    switch (feed.role()) {
      case OBJECTS, HISTORY -> objectUpdate(feed, e.update(), now);
      case PODS -> namespaced(pods, feed, e.update());
      case REPLICA_SETS -> namespaced(replicaSets, feed, e.update());
    }
  }

  private void objectUpdate(
      HealthFeed feed, ResumableWatch.Update<DynamicKubernetesObject> update, Instant now) {
    Kind kind = feed.scope().kind();
    boolean history = feed.role() == HealthFeed.Role.HISTORY;
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
      Set<ResourceRef> present = new HashSet<>();
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

  private static void namespaced(
      Map<String, Map<String, JsonObject>> target,
      HealthFeed feed,
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
        wave.observe(ref, JsonTrees.toJava(o), podsOf(ref, o), bindings.of(ref, o), now);
      }
    }
  }

  /** Whether an object of {@code scope} that no history follows is still pending. */
  boolean pendingIn(HealthFeed.Scope scope) {
    return wave.pending().stream()
        .anyMatch(
            r ->
                r.kind().equals(scope.kind())
                    && r.namespace().equals(scope.namespace())
                    && !followed.contains(r));
  }

  /**
   * The pods of workload {@code o} seen so far: those it owns (a Deployment's: those of the
   * ReplicaSet of its current revision; a StatefulSet's: those of its update revision).
   */
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
      String revision = JsonTrees.text(o, "metadata", "annotations", Rollouts.REVISION);
      if (revision == null) {
        return List.of();
      }
      for (JsonObject rs : replicaSets.getOrDefault(ref.namespace(), Map.of()).values()) {
        if (ownedBy(rs, uid)
            && revision.equals(JsonTrees.text(rs, "metadata", "annotations", Rollouts.REVISION))) {
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
              || updateRevision.equals(
                  JsonTrees.text(pod, "metadata", "labels", "controller-revision-hash")))) {
        out.add(JsonTrees.toJava(pod));
      }
    }
    return out;
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
