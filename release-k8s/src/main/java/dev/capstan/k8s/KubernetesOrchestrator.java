package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.release.ClusterException;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.ResourceType;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.LiveObject;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The release engine's {@link Orchestrator} on Kubernetes: a service is an {@code apps/v1}
 * Deployment, plus a {@code v1} Service when it declares ports, both written by server-side apply
 * under field manager {@code capstan} and stamped with the ownership labels and annotations.
 * Readiness is watched, with {@code kubectl rollout status} semantics, and fails fast with the
 * reason: {@code ProgressDeadlineExceeded}, {@code FailedCreate} (e.g. a quota), pods in {@code
 * ImagePullBackOff}, {@code ErrImagePull}, {@code CrashLoopBackOff} or unschedulable.
 *
 * <p>Every failed request becomes a {@link ClusterException} naming the operation, kind, object and
 * HTTP status; an interrupted wait or request restores the thread's interrupt flag. Thread-safe.
 */
public final class KubernetesOrchestrator implements Orchestrator {
  private final ResourceApi<V1Deployment, V1DeploymentList> deployments;
  private final ResourceApi<V1Service, V1ServiceList> services;
  private final RolloutTracker tracker;

  /** An orchestrator on the given clients. */
  public KubernetesOrchestrator(KubeClients clients) {
    requireNonNull(clients, "clients");
    this.deployments = new ResourceApi<>(clients, Kind.DEPLOYMENT, Errors.RELEASE);
    this.services = new ResourceApi<>(clients, Kind.SERVICE, Errors.RELEASE);
    this.tracker = new RolloutTracker(clients, Errors.RELEASE);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Two LISTs (paged), of the namespace's Deployments and of its Services, filtered to {@code
   * names} (with a single name, selected by field). The spec is read back from the Deployment, the
   * ports from what the Service serves.
   */
  @Override
  public List<LiveObject> observe(ResourceType type, String namespace, Set<String> names) {
    requireService(type);
    requireNonNull(namespace, "namespace");
    if (names.isEmpty()) {
      return List.of();
    }
    String field = names.size() == 1 ? "metadata.name=" + names.iterator().next() : null;
    Map<String, JsonObject> deploymentRaw =
        byName(deployments.listRaw(namespace, null, field), names);
    Map<String, JsonObject> serviceRaw = byName(services.listRaw(namespace, null, field), names);
    List<LiveObject> out = new ArrayList<>();
    for (String name : new TreeSet<>(names)) {
      JsonObject d = deploymentRaw.get(name);
      JsonObject s = serviceRaw.get(name);
      if (d == null && s == null) {
        continue;
      }
      out.add(
          ServiceObjects.live(
              ResourceRef.of(ResourceType.SERVICE, namespace, name),
              d,
              d == null ? null : deployments.fromRaw(d),
              s,
              s == null ? null : services.fromRaw(s)));
    }
    return out;
  }

  private static Map<String, JsonObject> byName(List<JsonObject> objects, Set<String> names) {
    Map<String, JsonObject> out = new HashMap<>();
    for (JsonObject o : objects) {
      String name = o.getAsJsonObject("metadata").get("name").getAsString();
      if (names.contains(name)) {
        out.put(name, o);
      }
    }
    return out;
  }

  /**
   * {@inheritDoc}
   *
   * <p>With ports: a server-side apply of the Deployment, then of the Service. Without: a
   * server-side apply of the Deployment, then a GET of the Service, deleted (with preconditions)
   * when it carries the same owner's stamp, as after ports were removed. Applies are forced: the
   * plan has decided that Capstan's fields win.
   */
  @Override
  public void apply(ResourceSpec spec, @Nullable OwnershipStamp stamp) {
    if (!(requireNonNull(spec, "spec") instanceof ServiceSpec service)) {
      throw notOrchestrated(spec.type());
    }
    String manager = Stamps.MANAGER_NAME;
    deployments.apply(
        service.namespace(), service.name(), ServiceObjects.deployment(service, stamp), manager);
    if (!service.ports().isEmpty()) {
      services.apply(
          service.namespace(), service.name(), ServiceObjects.service(service, stamp), manager);
    } else if (stamp != null) {
      OwnedObjects.delete(services, service.namespace(), service.name(), stamp.owner(), null);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>A GET and a DELETE (background propagation, with preconditions) of the Deployment, and the
   * same for the Service; each only when it carries {@code owner}'s stamp.
   */
  @Override
  public boolean delete(ResourceRef ref, ReleaseIdentity owner) {
    requireService(ref.type());
    boolean deployment =
        OwnedObjects.delete(deployments, ref.namespace(), ref.name(), owner, "Background");
    boolean service = OwnedObjects.delete(services, ref.namespace(), ref.name(), owner, null);
    return deployment || service;
  }

  /**
   * {@inheritDoc} Removes the stamp from the Deployment and the Service (a GET and a PATCH each).
   */
  @Override
  public boolean unstamp(ResourceRef ref, ReleaseIdentity owner) {
    requireService(ref.type());
    boolean deployment =
        OwnedObjects.unstamp(deployments, ref.namespace(), ref.name(), owner, Set.of());
    boolean service = OwnedObjects.unstamp(services, ref.namespace(), ref.name(), owner, Set.of());
    return deployment || service;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Per namespace: one LIST of the Deployments; when a rollout is still going, a watch on the
   * Deployments and one on their pods until every rollout is complete, one fails, or the time is
   * up.
   */
  @Override
  public Readiness awaitReady(List<ResourceRef> services, Duration timeout) {
    requireNonNull(timeout, "timeout");
    Map<String, Set<String>> byNamespace = new TreeMap<>();
    for (ResourceRef ref : services) {
      requireService(ref.type());
      byNamespace.computeIfAbsent(ref.namespace(), n -> new TreeSet<>()).add(ref.name());
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    List<ResourceRef> pending = new ArrayList<>();
    for (Map.Entry<String, Set<String>> e : byNamespace.entrySet()) {
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      Map<String, RolloutTracker.Outcome> outcomes =
          tracker.await(e.getKey(), e.getValue(), left, true, true);
      Map<String, RolloutTracker.Outcome> ordered = new LinkedHashMap<>(new TreeMap<>(outcomes));
      for (Map.Entry<String, RolloutTracker.Outcome> o : ordered.entrySet()) {
        ResourceRef ref = ResourceRef.of(ResourceType.SERVICE, e.getKey(), o.getKey());
        if (o.getValue() instanceof RolloutTracker.Outcome.Failed f) {
          return Readiness.failed(ref, f.reason());
        }
        if (o.getValue() instanceof RolloutTracker.Outcome.Pending) {
          pending.add(ref);
        }
      }
    }
    return pending.isEmpty() ? Readiness.ready() : Readiness.timedOut(pending, timeout);
  }

  private static void requireService(ResourceType type) {
    if (requireNonNull(type, "type") != ResourceType.SERVICE) {
      throw notOrchestrated(type);
    }
  }

  private static IllegalArgumentException notOrchestrated(ResourceType type) {
    return new IllegalArgumentException(
        "the Kubernetes orchestrator runs services; " + type + " objects belong to the store");
  }
}
