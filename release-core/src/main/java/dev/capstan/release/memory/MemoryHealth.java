package dev.capstan.release.memory;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.internal.json.Json;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How the objects of an {@link InMemoryCluster} fare: the images made never ready or made to fail,
 * the statuses and conditions tests report, and the judgement of a wave's health and of a hook's
 * completion from them. Guarded by the cluster's monitor, as {@link MemoryObjects} is.
 */
final class MemoryHealth {
  final Map<String, String> neverReady = new HashMap<>();
  final Map<String, String> failToComplete = new HashMap<>();
  final Map<ResourceRef, Map<String, Object>> statuses = new HashMap<>();

  void neverReady(String image, String reason) {
    neverReady.put(requireNonNull(image, "image"), requireNonNull(reason, "reason"));
  }

  void reportStatus(ResourceRef ref, Map<String, ?> status) {
    statuses.put(requireNonNull(ref, "ref"), deepCopy(requireNonNull(status, "status")));
  }

  void reportCondition(ResourceRef ref, String type, String status, String reason, String message) {
    Map<String, Object> tree =
        new java.util.LinkedHashMap<>(statuses.getOrDefault(requireNonNull(ref, "ref"), Map.of()));
    List<Object> conditions = new ArrayList<>();
    if (tree.get("conditions") instanceof List<?> list) {
      for (Object c : list) {
        if (!(c instanceof Map<?, ?> m && type.equals(m.get("type")))) {
          conditions.add(c);
        }
      }
    }
    conditions.add(
        Map.of(
            "type",
            requireNonNull(type, "type"),
            "status",
            requireNonNull(status, "status"),
            "reason",
            requireNonNull(reason, "reason"),
            "message",
            requireNonNull(message, "message")));
    tree.put("conditions", conditions);
    statuses.put(ref, deepCopy(tree));
  }

  void clearStatus(ResourceRef ref) {
    statuses.remove(requireNonNull(ref, "ref"));
  }

  private static Map<String, Object> deepCopy(Map<String, ?> tree) {
    @SuppressWarnings("unchecked")
    Map<String, Object> copy = Json.mapper().convertValue(tree, Map.class);
    return java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * How {@code refs} stand among {@code objects}: the first missing one or one running a
   * never-ready image fails, a reported status is judged by the health rules ({@link WaveHealth}),
   * and the rest are ready at once.
   */
  Readiness ready(
      List<ResourceRef> refs, Map<ResourceRef, StoredObject> objects, ReadinessWait wait) {
    Readiness result = null;
    Instant start = Instant.EPOCH;
    List<ResourceRef> judged =
        refs.stream().filter(r -> statuses.containsKey(r) && objects.containsKey(r)).toList();
    WaveHealth health = new WaveHealth(judged, wait.waitForLoadBalancer(), start, wait.health());
    for (ResourceRef ref : refs) {
      StoredObject o = objects.get(ref);
      if (o == null) {
        result = Readiness.failed(ref, "not found");
        break;
      }
      String reason = imageIn(o.content, neverReady);
      if (reason != null) {
        result = Readiness.failed(ref, reason);
        break;
      }
      Map<String, Object> status = statuses.get(ref);
      if (status != null) {
        Map<String, Object> tree = new java.util.LinkedHashMap<>(o.content.content());
        tree.put("status", status);
        if (health.observe(ref, tree, List.of(), HealthRules.VolumeBinding.IMMEDIATE, start)
            instanceof Health.Failed f) {
          result = Readiness.failed(ref, f.reason());
          break;
        }
      }
    }
    if (result == null) {
      result = health.decide(start);
    }
    if (result == null) {
      result = health.decide(start.plus(wait.timeout()));
    }
    if (result == null) {
      result = health.timedOut(wait.timeout());
    }
    return result;
  }

  /**
   * How the hook object {@code o} at {@code ref} ends: failed as its image was {@linkplain
   * #failToComplete made to fail}, timed out after {@code timeout} when its image is never ready
   * (last seen as {@code Kind namespace/name: REASON}), else complete; a missing one fails.
   */
  Readiness completion(ResourceRef ref, @Nullable StoredObject o, Duration timeout) {
    String fails = o == null ? null : imageIn(o.content, failToComplete);
    String never = o == null ? null : imageIn(o.content, neverReady);
    if (o == null) {
      return Readiness.failed(ref, "not found");
    } else if (fails != null) {
      return Readiness.failed(ref, fails);
    } else if (never != null) {
      return Readiness.timedOut(
          List.of(ref), timeout, Map.of(ref, WaveHealth.id(ref) + ": " + never));
    }
    return Readiness.ready();
  }

  /** What {@code byImage} says of the first image {@code object}'s pod template runs. */
  private static @Nullable String imageIn(Manifest object, Map<String, String> byImage) {
    Object podSpec =
        object.kind().equals(Kind.POD)
            ? object.get("spec")
            : object.kind().equals(Kind.CRON_JOB) ? null : object.get("spec.template.spec");
    if (!(podSpec instanceof Map<?, ?> pod)) {
      return null;
    }
    for (String list : List.of("initContainers", "containers")) {
      if (pod.get(list) instanceof List<?> containers) {
        for (Object c : containers) {
          if (c instanceof Map<?, ?> container
              && container.get("image") instanceof String image
              && byImage.containsKey(image)) {
            return byImage.get(image);
          }
        }
      }
    }
    return null;
  }
}
