package dev.capstan.k8s;

import dev.capstan.common.health.HealthRules;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.kubernetes.client.openapi.models.V1ReplicaSetList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Waits for Deployment rollouts by watching, never polling: one LIST of the Deployments decides at
 * once when every rollout is already over (the usual case for a cast that changed nothing);
 * otherwise a {@link ResumableWatch} on the Deployments from that LIST's resourceVersion (so no
 * change between the LIST and the WATCH is lost) and one on their pods (opened without a version,
 * so it starts with the current pods) feed the {@link WatchLoop}, and every batch of events is
 * evaluated with {@link Rollouts}. A pod in a bad state fails its Deployment only when it belongs
 * to the Deployment's current ReplicaSet (found with one LIST of ReplicaSets, the first time a bad
 * pod shows up), so old pods of a crashing revision never fail the rollout that replaces them. A
 * pod of the current ReplicaSet that the scheduler holds back keeps the rollout waiting and is
 * named in its status (and so in a time-out).
 */
final class RolloutTracker {

  private final ResourceApi<V1Deployment, V1DeploymentList> deployments;
  private final ResourceApi<V1Pod, V1PodList> pods;
  private final ResourceApi<V1ReplicaSet, V1ReplicaSetList> replicaSets;

  RolloutTracker(KubeClients clients) {
    this.deployments = new ResourceApi<>(clients, ApiResource.DEPLOYMENT);
    this.pods = new ResourceApi<>(clients, ApiResource.POD);
    this.replicaSets = new ResourceApi<>(clients, ApiResource.REPLICASET);
  }

  /** How one rollout ended. */
  sealed interface Outcome {
    /** Rolled out. */
    record Complete() implements Outcome {}

    /** Will not roll out, for {@code reason}. */
    record Failed(String reason) implements Outcome {}

    /** Not decided when the wait ended; {@code message} is the last status seen. */
    record Pending(String message) implements Outcome {}
  }

  /**
   * Waits for the Deployments {@code names} of {@code namespace}.
   *
   * @param missingFails whether a Deployment that does not exist fails at once (otherwise it is
   *     waited for)
   * @param stopAtFailure whether to return as soon as one rollout fails
   * @return the outcome of each Deployment
   */
  Map<String, Outcome> await(
      String namespace,
      Set<String> names,
      Duration timeout,
      boolean missingFails,
      boolean stopAtFailure) {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
    String field = names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
    Wait wait = new Wait(namespace, names, missingFails);
    ResourceApi.Listing<V1Deployment> listed = deployments.listing(namespace, null, field);
    for (V1Deployment d : listed.items()) {
      wait.put(d);
    }
    wait.evaluate();
    if (wait.settled(stopAtFailure)) {
      return wait.outcomes();
    }
    String podSelector = Rollouts.podSelector(new ArrayList<>(wait.deployments.values()));
    try (WatchLoop<Event> loop =
        new WatchLoop<>(
            System::nanoTime,
            ResumableWatch::sleep,
            Event::update,
            () ->
                deployments.failure(
                    "watch", namespace, null, new KubeFailure(0, "", "interrupted", null)))) {
      watch(loop, false, deployments, namespace, field, null, listed.resourceVersion(), deadline);
      watch(loop, true, pods, namespace, null, podSelector, null, deadline);
      loop.start();
      while (!wait.settled(stopAtFailure) && deadline - System.nanoTime() > 0) {
        List<Event> batch = loop.next(deadline);
        if (batch.isEmpty()) {
          break;
        }
        for (Event event : batch) {
          loop.check(event);
          wait.apply(event);
        }
        wait.evaluate();
      }
    }
    return wait.outcomes();
  }

  /** An update of the pods' watch ({@code pods}) or the Deployments'. */
  private record Event(boolean pods, ResumableWatch.Update<? extends KubernetesObject> update) {}

  private static <T extends KubernetesObject> void watch(
      WatchLoop<Event> loop,
      boolean ofPods,
      ResourceApi<T, ?> api,
      String namespace,
      @Nullable String fieldSelector,
      @Nullable String labelSelector,
      @Nullable String from,
      long deadline) {
    ResumableWatch.Source<T> source =
        ResumableWatch.Source.of(
            api,
            namespace,
            labelSelector,
            fieldSelector,
            () -> api.listing(namespace, labelSelector, fieldSelector));
    loop.watch(
        api.kind().plural() + "-" + namespace,
        source,
        from,
        deadline,
        update -> new Event(ofPods, update));
  }

  /** The state of one wait: the objects seen and the outcomes so far. */
  private final class Wait {
    final String namespace;
    final Set<String> names;
    final boolean missingFails;
    final Map<String, V1Deployment> deployments = new LinkedHashMap<>();
    final Map<String, V1Pod> podsByName = new HashMap<>();
    final Map<String, Outcome> outcomes = new LinkedHashMap<>();

    /** Current template hash by Deployment uid and revision. */
    final Map<String, String> templateHashes = new HashMap<>();

    Wait(String namespace, Set<String> names, boolean missingFails) {
      this.namespace = namespace;
      this.names = new TreeSet<>(names);
      this.missingFails = missingFails;
    }

    void put(V1Deployment d) {
      String name = d.getMetadata().getName();
      if (names.contains(name)) {
        deployments.put(name, d);
      }
    }

    void apply(Event event) {
      if (event.update() instanceof ResumableWatch.Update.Relisted<?> r) {
        // a new LIST is all there is now: what it lacks was deleted meanwhile
        if (event.pods()) {
          podsByName.clear();
        } else {
          deployments.clear();
        }
        for (Object o : r.items()) {
          change("ADDED", o);
        }
      } else if (event.update() instanceof ResumableWatch.Update.Changed<?> c) {
        change(c.type(), c.object());
      }
    }

    private void change(String type, Object object) {
      boolean deleted = type.equals("DELETED");
      if (object instanceof V1Deployment d) {
        if (deleted) {
          deployments.remove(d.getMetadata().getName());
        } else {
          put(d);
        }
      } else if (object instanceof V1Pod p) {
        if (deleted) {
          podsByName.remove(p.getMetadata().getName());
        } else {
          podsByName.put(p.getMetadata().getName(), p);
        }
      }
    }

    void evaluate() {
      for (String name : names) {
        Outcome current = outcomes.get(name);
        if (current instanceof Outcome.Complete || current instanceof Outcome.Failed) {
          continue;
        }
        outcomes.put(name, evaluate(name));
      }
    }

    private Outcome evaluate(String name) {
      V1Deployment d = deployments.get(name);
      if (d == null) {
        String message = "deployment " + namespace + "/" + name + " not found";
        return missingFails ? new Outcome.Failed(message) : new Outcome.Pending(message);
      }
      Rollouts.Verdict verdict = Rollouts.verdict(d);
      if (verdict.state() == Rollouts.State.COMPLETE) {
        return new Outcome.Complete();
      }
      if (verdict.state() == Rollouts.State.FAILED) {
        return new Outcome.Failed(verdict.message());
      }
      Map<String, String> selector = Rollouts.matchLabels(d);
      String pending = null;
      for (V1Pod pod : new java.util.TreeMap<>(podsByName).values()) {
        String failure = Rollouts.podFailure(pod);
        String held = failure == null && pending == null ? Rollouts.podPending(pod) : null;
        if ((failure != null || held != null)
            && Rollouts.selects(selector, pod)
            && current(d, pod)) {
          if (failure != null) {
            return new Outcome.Failed(failure);
          }
          pending = held;
        }
      }
      return new Outcome.Pending(
          pending == null ? verdict.message() : verdict.message() + "; " + pending);
    }

    /** Whether the pod belongs to the Deployment's current ReplicaSet. */
    private boolean current(V1Deployment d, V1Pod pod) {
      String hash = templateHash(d);
      Map<String, String> labels = pod.getMetadata().getLabels();
      return hash != null && labels != null && hash.equals(labels.get(Rollouts.TEMPLATE_HASH));
    }

    private @Nullable String templateHash(V1Deployment d) {
      String revision = Stamps.annotation(d.getMetadata(), Rollouts.REVISION);
      String uid = d.getMetadata().getUid();
      if (revision == null
          || uid == null
          || !HealthRules.generationObserved(
              Rollouts.status(d).generation(), Rollouts.status(d).observedGeneration())) {
        return null; // the controller has not made the new ReplicaSet yet
      }
      String key = uid + "#" + revision;
      String known = templateHashes.get(key);
      if (known != null) {
        return known;
      }
      String selector = Rollouts.podSelector(List.of(d));
      for (V1ReplicaSet rs : replicaSets.list(namespace, selector, null)) {
        boolean owned =
            rs.getMetadata().getOwnerReferences() != null
                && rs.getMetadata().getOwnerReferences().stream()
                    .map(V1OwnerReference::getUid)
                    .anyMatch(uid::equals);
        Map<String, String> labels = rs.getMetadata().getLabels();
        if (owned
            && revision.equals(Stamps.annotation(rs.getMetadata(), Rollouts.REVISION))
            && labels != null
            && labels.get(Rollouts.TEMPLATE_HASH) != null) {
          String hash = labels.get(Rollouts.TEMPLATE_HASH);
          templateHashes.put(key, hash);
          return hash;
        }
      }
      return null;
    }

    boolean settled(boolean stopAtFailure) {
      if (stopAtFailure && outcomes.values().stream().anyMatch(o -> o instanceof Outcome.Failed)) {
        return true;
      }
      return outcomes.values().stream().noneMatch(o -> o instanceof Outcome.Pending);
    }

    Map<String, Outcome> outcomes() {
      return Map.copyOf(outcomes);
    }
  }
}
