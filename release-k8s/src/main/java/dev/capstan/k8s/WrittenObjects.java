package dev.capstan.k8s;

import com.google.gson.JsonObject;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.ReadinessWait;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the API server answered to this adapter's last writes of the objects with a health rule, so
 * a wait can start from a write instead of a LIST: the resourceVersion of each write (an object a
 * LIST no longer finds is followed from it), whether a Service was current as written, and the
 * object answered for a workload that rolls out. Only the writes of the last few thousand objects
 * are kept; an object whose write was forgotten is read as if this adapter had not written it.
 */
final class WrittenObjects {
  /** How many writes are remembered for the objects a LIST no longer finds. */
  private static final int WRITES_KEPT = 10_000;

  /** The workloads that roll out, whose answer to a write says whether they are current. */
  static final Set<Kind> ROLLING = Set.of(Kind.DEPLOYMENT, Kind.STATEFUL_SET, Kind.DAEMON_SET);

  /** How many answers to writes of {@link #ROLLING} workloads are remembered. */
  private static final int ANSWERS_KEPT = 1_000;

  /**
   * Whether a Service was current as this adapter's write of it was answered, waiting for a load
   * balancer's address or not.
   */
  private record ServiceAtWrite(boolean current, boolean currentWithoutLoadBalancer) {}

  /** The resourceVersion of this adapter's last write of each object with a rule. */
  private final Map<ResourceRef, String> versions = lastWrites(WRITES_KEPT);

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
    versions.put(ref, resourceVersion);
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

  /** The resourceVersion of this adapter's last write of {@code ref}, if it is remembered. */
  @Nullable String version(ResourceRef ref) {
    return versions.get(ref);
  }

  /** Whether this adapter's last write of {@code ref} is remembered. */
  boolean wrote(ResourceRef ref) {
    return versions.containsKey(ref);
  }

  /**
   * Whether {@code ref} is a Service the wait was told was just written (so its last write here is
   * that one), current as answered.
   */
  boolean currentAsWritten(ResourceRef ref, ReadinessWait wait) {
    if (!ref.kind().equals(Kind.SERVICE) || !wait.written().contains(ref)) {
      return false;
    }
    ServiceAtWrite at = services.get(ref);
    return at != null
        && (wait.waitForLoadBalancer() ? at.current() : at.currentWithoutLoadBalancer());
  }

  /**
   * The answer to this adapter's write of {@code ref} (a copy), when the wait was told it was just
   * written and it is a workload that rolls out ({@link #ROLLING}) whose write's answer and version
   * are known; else {@code null}.
   */
  @Nullable JsonObject answeredAsWritten(ResourceRef ref, ReadinessWait wait) {
    if (!ROLLING.contains(ref.kind()) || !wait.written().contains(ref) || !wrote(ref)) {
      return null;
    }
    JsonObject answered = answers.get(ref);
    return answered == null ? null : answered.deepCopy();
  }

  /** Whether an object as answered is current, as a wait with no pods to judge would say. */
  static boolean current(Map<String, Object> object, boolean waitForLoadBalancer) {
    return HealthRules.of(
            object, List.of(), HealthRules.VolumeBinding.IMMEDIATE, waitForLoadBalancer)
        .isCurrent();
  }
}
