package dev.capstan.k8s;

import com.google.gson.JsonObject;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import java.time.Duration;
import java.util.List;
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
 * fail early, or why it is still in progress (a pod the scheduler finds no node for, which waiting
 * may cure, named in the progress and in a time-out). So the WATCH of the ReplicaSets, needed to
 * tell a pod of the current revision from an old one, opens only once a pod in the namespace is
 * {@linkplain HealthRules#podNamedInVerdict one a verdict names} while a Deployment there is in
 * progress: a rollout of a Deployment just written that goes well costs one WATCH of it, and a
 * WATCH of its pods if it takes longer than the grace.
 *
 * <p>While it waits, the wait's progress listener hears what is pending and why, when {@link
 * WaveHealth#progress} says a report is due.
 *
 * <p>This class lives as long as the adapter and keeps what outlives a wait: the answers to this
 * adapter's writes ({@link WrittenObjects}) and the StorageClasses' binding modes ({@link
 * VolumeBindings}). Each wait is a {@link HealthWait} of its own (plan, read, follow); what it has
 * seen is its {@link HealthWaitState}.
 */
final class HealthWatch {
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
  private final VolumeBindings bindings;
  private final WrittenObjects writes = new WrittenObjects();

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
    this.bindings = new VolumeBindings(apis);
  }

  /**
   * Remembers this adapter's write of {@code ref}: the resourceVersion the API server answered it
   * with and, for a Service, whether the object it {@code answered} was current, for a workload
   * that rolls out (Deployment, StatefulSet, DaemonSet) the object it answered: a wait that is told
   * the object was just written ({@link ReadinessWait#written()}) takes that for its first read.
   */
  void written(ResourceRef ref, @Nullable String resourceVersion, @Nullable JsonObject answered) {
    writes.written(ref, resourceVersion, answered);
  }

  /** Waits for {@code refs} to be healthy, as {@code wait} says; see the class comment. */
  Readiness await(List<ResourceRef> refs, ReadinessWait wait) {
    return new HealthWait(apis, writes, bindings, nanos, pause, podsGrace, wait).run(refs);
  }
}
