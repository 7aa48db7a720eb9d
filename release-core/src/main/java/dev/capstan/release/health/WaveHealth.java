package dev.capstan.release.health;

import static dev.capstan.common.Escapes.escape;
import static java.util.Objects.requireNonNull;

import dev.capstan.common.Durations;
import dev.capstan.common.health.Condition;
import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The health of the objects one wait is for (a wave of a cast), as it is observed over time: the
 * rules of {@link HealthRules} for each object, plus what only time can tell. An adapter feeds it
 * what it sees (an object as listed or changed, an object deleted, an object not found) with the
 * instant it saw it, and asks it for the outcome, for when to look again without news, and for
 * progress to report. Not thread-safe: one waiting thread owns it.
 *
 * <ul>
 *   <li>An object once current stays current for the rest of the wait.
 *   <li>An object deleted while it is waited for is judged by the last state its deletion showed,
 *       its deletion set aside: a Job its TTL removed after it completed is current; one that was
 *       not done fails at once ({@code Job shop/once: deleted before it was healthy; last seen: 0
 *       succeeded, 1 active, 0 failed}); one whose last state failed fails with that reason.
 *   <li>An object not found fails at once.
 *   <li>An APIService served by a Service that stays {@code Available=False} with one reason for
 *       {@link #API_SERVICE_PATIENCE} once every other object of the wave is healthy fails with
 *       that reason: the aggregator re-checks an APIService's availability at least every 30 s (and
 *       at once when its Service's endpoints change), so a backend that was going to answer would
 *       have made it available by then. A backend Deployment of the same wave that becomes ready
 *       late holds the clock back, so a normal install (metrics-server's shape) succeeds.
 *   <li>Progress is due {@link #FIRST_PROGRESS} after the start, then when what is pending (or why)
 *       changed, at most every {@link #PROGRESS_INTERVAL}, and every {@link #QUIET_PROGRESS} while
 *       nothing changes.
 * </ul>
 */
public final class WaveHealth {
  /**
   * How long an APIService may stay {@code Available=False} with one reason once the rest of its
   * wave is healthy: the kube-aggregator's 30 s re-check of every APIService (its informer's
   * resync, and the longest back-off after failed checks) plus its 6 s discovery timeout.
   */
  public static final Duration API_SERVICE_PATIENCE = Duration.ofSeconds(36);

  /** How long a wait goes before its first progress report. */
  public static final Duration FIRST_PROGRESS = Duration.ofSeconds(5);

  /** The least time between two progress reports. */
  public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

  /** The most time between two progress reports while nothing changes. */
  public static final Duration QUIET_PROGRESS = Duration.ofSeconds(30);

  private final List<ResourceRef> objects;
  private final Set<ResourceRef> waited;
  private final boolean waitForLoadBalancer;
  private final CustomHealth rules;
  private final Instant start;
  private final Map<ResourceRef, Health> verdicts = new HashMap<>();
  private final Map<ResourceRef, Instant> currentSince = new HashMap<>();
  private final Map<ResourceRef, Blocked> blocked = new HashMap<>();
  private @Nullable Instant lastReport;
  private Map<ResourceRef, String> lastReported = Map.of();

  /** A condition that holds an object back, since when it has been seen unchanged. */
  private record Blocked(String condition, String reason, Instant since) {}

  /**
   * A wait for {@code objects}, starting at {@code start}.
   *
   * @param objects the objects, in the order they are waited for (failures are reported in it)
   * @param waitForLoadBalancer whether a Service of type LoadBalancer waits for its address (see
   *     {@link HealthRules#of(Map, List, HealthRules.VolumeBinding, boolean)})
   * @param start when the wait started
   */
  public WaveHealth(List<ResourceRef> objects, boolean waitForLoadBalancer, Instant start) {
    this(objects, waitForLoadBalancer, start, CustomHealth.none());
  }

  /**
   * A wait for {@code objects}, starting at {@code start}, judging by {@code rules} before the
   * built-in rules.
   *
   * @param rules users' health rules over the shipped defaults ({@link HealthRules#of(Map, List,
   *     HealthRules.VolumeBinding, boolean, CustomHealth)})
   */
  public WaveHealth(
      List<ResourceRef> objects, boolean waitForLoadBalancer, Instant start, CustomHealth rules) {
    this.rules = requireNonNull(rules, "rules");
    this.objects = List.copyOf(objects);
    this.waited = new LinkedHashSet<>(this.objects);
    this.waitForLoadBalancer = waitForLoadBalancer;
    this.start = requireNonNull(start, "start");
  }

  /** The objects waited for, in order. */
  public List<ResourceRef> objects() {
    return objects;
  }

  /**
   * Judges {@code ref} as it is now, unless it is current already.
   *
   * @param ref the object waited for
   * @param object its tree as read
   * @param pods the pods of its current revision (see {@link HealthRules#of(Map, List)})
   * @param claimBinding for a PersistentVolumeClaim, how its class binds
   * @param now when it was seen
   * @return its verdict now
   */
  public Health observe(
      ResourceRef ref,
      Map<String, Object> object,
      List<Map<String, Object>> pods,
      HealthRules.VolumeBinding claimBinding,
      Instant now) {
    Health known = known(ref);
    if (known != null) {
      return known;
    }
    Health h = HealthRules.of(object, pods, claimBinding, waitForLoadBalancer, rules);
    record(ref, h, now);
    String condition = h instanceof Health.InProgress ? blockingCondition(object) : null;
    Blocked before = blocked.get(ref);
    if (condition == null) {
      blocked.remove(ref);
    } else if (before == null || !before.condition().equals(condition)) {
      blocked.put(ref, new Blocked(condition, ((Health.InProgress) h).reason(), now));
    } else {
      blocked.put(ref, new Blocked(condition, ((Health.InProgress) h).reason(), before.since()));
    }
    return h;
  }

  /**
   * Judges {@code ref}, deleted, by {@code lastState} (the object its deletion event carried, or
   * the last one seen), its deletion set aside: current when that state was current; otherwise
   * failed, with the reason it failed or saying it was deleted before it was healthy.
   *
   * @return its verdict, never in progress
   */
  public Health deleted(ResourceRef ref, Map<String, Object> lastState, Instant now) {
    Health known = known(ref);
    if (known != null) {
      return known;
    }
    Health last =
        HealthRules.of(
            withoutDeletion(lastState),
            List.of(),
            HealthRules.VolumeBinding.IMMEDIATE,
            waitForLoadBalancer,
            rules);
    Health h;
    if (last instanceof Health.InProgress p) {
      String prefix = id(ref) + ": ";
      String detail =
          p.reason().startsWith(prefix) ? p.reason().substring(prefix.length()) : p.reason();
      h = Health.failed(id(ref) + ": deleted before it was healthy; last seen: " + detail);
    } else if (last instanceof Health.Failed f) {
      h = Health.failed(f.reason() + "; then it was deleted");
    } else {
      h = last;
    }
    blocked.remove(ref);
    record(ref, h, now);
    return h;
  }

  /**
   * Fails {@code ref}: it does not exist ({@code Kind namespace/name: not found}, then {@code
   * detail} when given).
   */
  public Health missing(ResourceRef ref, @Nullable String detail, Instant now) {
    Health known = known(ref);
    if (known != null) {
      return known;
    }
    Health h = Health.failed(id(ref) + ": not found" + (detail == null ? "" : " (" + detail + ")"));
    blocked.remove(ref);
    record(ref, h, now);
    return h;
  }

  /** Whether {@code ref} is current. */
  public boolean isCurrent(ResourceRef ref) {
    Health h = verdicts.get(ref);
    return h != null && h.isCurrent();
  }

  /** The objects not current yet, in order. */
  public List<ResourceRef> pending() {
    return objects.stream().filter(r -> !isCurrent(r)).toList();
  }

  /** What each pending object waits for: its last verdict's reason, or that it was not seen. */
  public Map<ResourceRef, String> reasons() {
    Map<ResourceRef, String> out = new LinkedHashMap<>();
    for (ResourceRef ref : pending()) {
      Health h = verdicts.get(ref);
      String reason;
      if (h instanceof Health.InProgress p) {
        reason = p.reason();
      } else if (h instanceof Health.Failed f) {
        reason = f.reason();
      } else {
        reason = id(ref) + ": not yet seen";
      }
      out.put(ref, reason);
    }
    return out;
  }

  /**
   * The outcome at {@code now}: the first failed object (in order), else an APIService whose
   * condition outlasted {@link #API_SERVICE_PATIENCE}, else ready when every object is current;
   * {@code null} while the wait goes on.
   */
  public @Nullable Readiness decide(Instant now) {
    for (ResourceRef ref : objects) {
      if (verdicts.get(ref) instanceof Health.Failed f) {
        return Readiness.failed(ref, f.reason());
      }
    }
    List<ResourceRef> pending = pending();
    if (pending.isEmpty()) {
      return Readiness.ready();
    }
    Instant rest = restHealthySince(pending);
    if (rest != null) {
      for (ResourceRef ref : pending) {
        Blocked b = blocked.get(ref);
        if (b != null && !now.isBefore(patienceEnds(b, rest))) {
          return Readiness.failed(
              ref,
              b.reason()
                  + "; unchanged for "
                  + Durations.format(API_SERVICE_PATIENCE)
                  + " once the rest of the wave was healthy (the aggregator re-checks an"
                  + " APIService at least every 30s)");
        }
      }
    }
    return null;
  }

  /**
   * When {@link #decide} may fail an object without anything new being seen (a blocking condition's
   * patience running out), or {@code null}.
   */
  public @Nullable Instant nextDecision() {
    List<ResourceRef> pending = pending();
    Instant rest = restHealthySince(pending);
    if (rest == null) {
      return null;
    }
    Instant next = null;
    for (ResourceRef ref : pending) {
      Blocked b = blocked.get(ref);
      if (b != null) {
        Instant ends = patienceEnds(b, rest);
        next = next == null || ends.isBefore(next) ? ends : next;
      }
    }
    return next;
  }

  /** The progress to report at {@code now}, or {@code null} when none is due. */
  public Readiness.@Nullable Progress progress(Instant now) {
    List<ResourceRef> pending = pending();
    if (pending.isEmpty() || now.isBefore(nextProgress())) {
      return null;
    }
    Map<ResourceRef, String> reasons = reasons();
    lastReport = now;
    lastReported = reasons;
    return new Readiness.Progress(Duration.between(start, now), objects.size(), pending, reasons);
  }

  /** When the next progress report is due (it is not made unless something is pending). */
  public Instant nextProgress() {
    Instant last = lastReport;
    if (last == null) {
      return start.plus(FIRST_PROGRESS);
    }
    return last.plus(reasons().equals(lastReported) ? QUIET_PROGRESS : PROGRESS_INTERVAL);
  }

  /** The wait ran out after {@code after}: what is pending, each with what it waits for. */
  public Readiness timedOut(Duration after) {
    return Readiness.timedOut(pending(), after, reasons());
  }

  private @Nullable Health known(ResourceRef ref) {
    if (!waited.contains(requireNonNull(ref, "ref"))) {
      throw new IllegalArgumentException("not waited for: " + ref.key());
    }
    Health h = verdicts.get(ref);
    return h != null && h.isCurrent() ? h : null;
  }

  private void record(ResourceRef ref, Health h, Instant now) {
    verdicts.put(ref, h);
    if (h.isCurrent()) {
      currentSince.putIfAbsent(ref, now);
      blocked.remove(ref);
    }
  }

  /**
   * Since when every pending object is held back by a blocking condition and every other object is
   * current (the latest instant one of them became current, at the earliest the start), or {@code
   * null} when some object without such a condition is still pending.
   */
  private @Nullable Instant restHealthySince(List<ResourceRef> pending) {
    for (ResourceRef ref : pending) {
      if (!blocked.containsKey(ref)) {
        return null;
      }
    }
    Instant since = start;
    for (Instant t : currentSince.values()) {
      since = t.isAfter(since) ? t : since;
    }
    return since;
  }

  private static Instant patienceEnds(Blocked b, Instant rest) {
    return (b.since().isAfter(rest) ? b.since() : rest).plus(API_SERVICE_PATIENCE);
  }

  /**
   * The condition an APIService served by a Service is held back by ({@code Available=False:
   * Reason}), or {@code null}: only the aggregator's availability check has a known re-check
   * period, so only it is timed.
   */
  private static @Nullable String blockingCondition(Map<String, Object> object) {
    if (!"APIService".equals(object.get("kind"))
        || !(object.get("apiVersion") instanceof String v)
        || !v.startsWith("apiregistration.k8s.io/")
        || !(object.get("spec") instanceof Map<?, ?> spec)
        || !(spec.get("service") instanceof Map<?, ?>)) {
      return null;
    }
    Condition available = Condition.find(Condition.of(object), "Available");
    if (available == null || !available.status().equals("False") || available.reason().isEmpty()) {
      return null;
    }
    return "Available=False: " + available.reason();
  }

  private static Map<String, Object> withoutDeletion(Map<String, Object> object) {
    if (!(object.get("metadata") instanceof Map<?, ?> meta)
        || !meta.containsKey("deletionTimestamp")) {
      return object;
    }
    Map<String, Object> metadata = new LinkedHashMap<>();
    meta.forEach((k, v) -> metadata.put(String.valueOf(k), v));
    metadata.remove("deletionTimestamp");
    Map<String, Object> copy = new LinkedHashMap<>(object);
    copy.put("metadata", metadata);
    return copy;
  }

  /**
   * {@code Kind namespace/name} (or {@code Kind name}), escaped, as verdicts name objects.
   *
   * @param ref the object
   * @return its name in a verdict's reason
   */
  public static String id(ResourceRef ref) {
    return escape(ref.kind().kind())
        + " "
        + (ref.namespace().isEmpty() ? "" : escape(ref.namespace()) + "/")
        + escape(ref.name());
  }
}
