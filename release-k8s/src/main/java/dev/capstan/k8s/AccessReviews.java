package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.common.health.HealthRules;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.plan.PlannedHook;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SelfSubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Asks the API server, as the user of a {@link KubeClients} (a Release's service account, through
 * {@link KubeClients#asServiceAccount}), whether it may send every request a cast of a plan sends
 * through {@link KubernetesOrchestrator} and {@link KubernetesStore}, before the cast writes
 * anything: one {@code SelfSubjectAccessReview} per distinct verb, resource and namespace, which
 * every authenticated user may create (the {@code system:basic-user} role), so it needs no grant of
 * its own.
 *
 * <p>The requests of a cast, by what it does:
 *
 * <ul>
 *   <li>each object created: {@code create} and {@code patch} (a server-side apply that creates is
 *       authorized as both); updated, repaired, adopted or un-stamped: {@code patch}; pruned:
 *       {@code delete}; replaced: {@code delete}, {@code get} (a fenced delete looks again), {@code
 *       list} and {@code watch} (the wait until it is gone), {@code create} and {@code patch}
 *       (created again by a server-side apply);
 *   <li>the health of each object written whose kind has a rule ({@link HealthRules#hasRule}):
 *       {@code list} and {@code watch} of its kind in its namespace; for a workload, of {@code
 *       pods} there too, and for a Deployment of {@code replicasets}; for a PersistentVolumeClaim,
 *       {@code list} of {@code storageclasses} (cluster-wide);
 *   <li>the bookkeeping in the release's namespace: {@code create}, {@code update} and {@code
 *       delete} of {@code leases} (take, renew, give up), {@code get}, {@code list}, {@code
 *       create}, {@code update} and {@code delete} of {@code secrets} (the records and their
 *       history: a read lists their metadata and gets the record it decodes).
 * </ul>
 *
 * <p>The plan's own reads (each kind's LIST) were made before, by the plan itself. A kind the
 * cluster does not serve yet (a custom resource whose CRD the same release creates) is not
 * reviewed: the API server decides its writes when they come. Thread-safe.
 */
public final class AccessReviews {
  private static final Set<String> WORKLOADS =
      Set.of(
          "apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "batch/Job");

  private final DynamicApis apis;
  private final AuthorizationV1Api authorization;

  /** Reviews as the user of {@code clients}. */
  public AccessReviews(KubeClients clients) {
    requireNonNull(clients, "clients");
    this.apis = new DynamicApis(clients);
    this.authorization = new AuthorizationV1Api(clients.apiClient());
  }

  /**
   * One request the user may not send.
   *
   * @param verb for example {@code create}
   * @param group the API group, {@code ""} for the core group
   * @param resource the resource, for example {@code clusterrolebindings}
   * @param namespace the namespace, {@code ""} for a cluster-wide request
   * @param objects the objects of the plan that need it (empty for the release's bookkeeping)
   */
  public record Denial(
      String verb, String group, String resource, String namespace, List<ResourceRef> objects) {
    /** Copies the list. */
    public Denial {
      requireNonNull(verb, "verb");
      requireNonNull(group, "group");
      requireNonNull(resource, "resource");
      requireNonNull(namespace, "namespace");
      objects = List.copyOf(objects);
    }

    /**
     * The request and what needs it: {@code create clusterrolebindings.rbac.authorization.k8s.io
     * cluster-wide (for ClusterRoleBinding/pwn)}, {@code update leases.coordination.k8s.io in
     * namespace team-a (for the release's records and lease)}.
     */
    public String describe() {
      StringBuilder sb =
          new StringBuilder(verb)
              .append(' ')
              .append(resource)
              .append(group.isEmpty() ? "" : "." + group)
              .append(namespace.isEmpty() ? " cluster-wide" : " in namespace " + namespace)
              .append(" (for ");
      if (objects.isEmpty()) {
        sb.append("the release's records and lease");
      } else {
        List<String> keys = objects.stream().map(ResourceRef::toString).toList();
        sb.append(String.join(", ", keys.size() > 5 ? keys.subList(0, 5) : keys));
        if (keys.size() > 5) {
          sb.append(" and ").append(keys.size() - 5).append(" more");
        }
      }
      return sb.append(')').toString();
    }
  }

  /** One request to review: a verb on a resource in a namespace. */
  private record Access(String verb, String group, String resource, String namespace) {}

  /**
   * The requests a cast of {@code plan} sends that the user may not send, in the order the cast
   * would send them, its hooks' included; empty when it may send them all.
   *
   * @throws ClusterException when a review cannot be made
   */
  public List<Denial> reviewCast(Plan plan) {
    requireNonNull(plan, "plan");
    Map<Access, List<ResourceRef>> wanted = new LinkedHashMap<>();
    for (PlannedChange c : plan.changes()) {
      Action action = c.action();
      ResourceRef ref = c.ref();
      List<String> verbs =
          switch (action) {
            case CREATE -> List.of("create", "patch");
            case UPDATE, REPAIR, ADOPT, RETAIN -> List.of("patch");
            case PRUNE -> List.of("delete");
            // deleted on its uid (a fenced delete looks again), awaited until gone, created again
            case REPLACE -> List.of("delete", "get", "list", "watch", "create", "patch");
            default -> List.of();
          };
      for (String verb : verbs) {
        want(wanted, verb, ref.kind(), ref.namespace(), ref);
      }
      if (action.writes()) {
        health(wanted, ref);
      }
    }
    // a hook's object is written with the same rights: observed, created, awaited, deleted
    for (PlannedHook h : plan.hooks()) {
      ResourceRef ref = h.ref();
      for (String verb : List.of("get", "list", "create", "patch", "delete")) {
        want(wanted, verb, ref.kind(), ref.namespace(), ref);
      }
      if (ref.kind().equals(Kind.JOB) || ref.kind().equals(Kind.POD)) {
        want(wanted, "watch", ref.kind(), ref.namespace(), ref);
        want(wanted, "list", DynamicApis.PODS, ref.namespace(), ref);
      }
    }
    for (String verb : List.of("create", "update", "delete")) {
      want(wanted, verb, DynamicApis.LEASES, plan.namespace(), null);
    }
    for (String verb : List.of("get", "list", "create", "update", "delete")) {
      want(wanted, verb, DynamicApis.SECRETS, plan.namespace(), null);
    }
    List<Denial> denied = new ArrayList<>();
    wanted.forEach(
        (access, objects) -> {
          if (!allowed(access)) {
            denied.add(
                new Denial(
                    access.verb(), access.group(), access.resource(), access.namespace(), objects));
          }
        });
    return denied;
  }

  private void health(Map<Access, List<ResourceRef>> wanted, ResourceRef ref) {
    Kind kind = ref.kind();
    if (!HealthRules.hasRule(kind.group(), kind.kind())) {
      return;
    }
    String ns = ref.namespace();
    for (String verb : List.of("list", "watch")) {
      want(wanted, verb, kind, ns, ref);
      if (WORKLOADS.contains(kind.group() + "/" + kind.kind())) {
        want(wanted, verb, DynamicApis.PODS, ns, ref);
      }
      if (kind.equals(Kind.DEPLOYMENT)) {
        want(wanted, verb, DynamicApis.REPLICA_SETS, ns, ref);
      }
    }
    if (kind.isVolumeClaim()) {
      want(wanted, "list", DynamicApis.STORAGE_CLASSES, "", ref);
    }
  }

  private void want(
      Map<Access, List<ResourceRef>> wanted,
      String verb,
      Kind kind,
      String namespace,
      ResourceRef ref) {
    Optional<Discovery.Resource> resource = apis.resolve(kind);
    if (resource.isPresent()) {
      want(wanted, verb, resource.get(), namespace, ref);
    }
  }

  private static void want(
      Map<Access, List<ResourceRef>> wanted,
      String verb,
      Discovery.Resource resource,
      String namespace,
      @org.jspecify.annotations.Nullable ResourceRef ref) {
    Access access =
        new Access(
            verb, resource.group(), resource.plural(), resource.namespaced() ? namespace : "");
    List<ResourceRef> objects = wanted.computeIfAbsent(access, a -> new ArrayList<>());
    if (ref != null && !objects.contains(ref)) {
      objects.add(ref);
    }
  }

  private boolean allowed(Access access) {
    V1ResourceAttributes attributes =
        new V1ResourceAttributes()
            .verb(access.verb())
            .group(access.group())
            .resource(access.resource());
    if (!access.namespace().isEmpty()) {
      attributes.namespace(access.namespace());
    }
    V1SelfSubjectAccessReview review =
        new V1SelfSubjectAccessReview()
            .apiVersion("authorization.k8s.io/v1")
            .kind("SelfSubjectAccessReview")
            .spec(new V1SelfSubjectAccessReviewSpec().resourceAttributes(attributes));
    try {
      V1SubjectAccessReviewStatus status =
          authorization.createSelfSubjectAccessReview(review).execute().getStatus();
      return status != null && Boolean.TRUE.equals(status.getAllowed());
    } catch (ApiException e) {
      throw KubeFailure.of(e)
          .toException("create", "SelfSubjectAccessReview", null, access.resource());
    }
  }
}
