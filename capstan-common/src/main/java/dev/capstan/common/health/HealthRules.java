package dev.capstan.common.health;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The health of any Kubernetes object, as pure functions of its tree: kstatus semantics (the rules
 * Helm 4 and Flux wait with), written for Capstan. {@link #of} applies, in order:
 *
 * <ol>
 *   <li>kinds that are ready when applied ({@link #hasRule} false: ConfigMap, Secret, RBAC, ...)
 *       are {@linkplain Health#current() current};
 *   <li>an object being deleted is in progress (but a Job that finished keeps its verdict: its TTL
 *       deletes it in the foreground, after its pods);
 *   <li>{@code status.observedGeneration} behind {@code metadata.generation} is in progress;
 *   <li>a condition {@code Stalled=True} fails, {@code Reconciling=True} is in progress;
 *   <li>the kind's own rule (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, Pod,
 *       PersistentVolumeClaim, Service, CustomResourceDefinition, APIService), where a workload
 *       that is still in progress fails at once when one of its pods cannot become ready (crash
 *       loop, image pull, bad container config), and names a pod the scheduler finds no node for
 *       (waiting may cure that: an unbound claim, a node being added);
 *   <li>any other object is in progress while a {@code Ready} or {@code Available} condition is not
 *       {@code True}, and current otherwise, so an object without status is current when applied.
 * </ol>
 *
 * <p>An in-progress verdict held up by a condition names it: {@code Type=Status: Reason: message}.
 * What only time can tell (an APIService whose availability stays unchanged once the rest of its
 * wave is healthy) is release-core's {@code WaveHealth}'s rule.
 */
public final class HealthRules {
  /** Kinds ({@code group/kind}, core group empty) that are ready as soon as they are applied. */
  private static final Set<String> READY_WHEN_APPLIED =
      Set.of(
          "/ConfigMap",
          "/Secret",
          "/ServiceAccount",
          "/Namespace",
          "/LimitRange",
          "/ResourceQuota",
          "/Endpoints",
          "rbac.authorization.k8s.io/Role",
          "rbac.authorization.k8s.io/RoleBinding",
          "rbac.authorization.k8s.io/ClusterRole",
          "rbac.authorization.k8s.io/ClusterRoleBinding",
          "networking.k8s.io/NetworkPolicy",
          "networking.k8s.io/Ingress",
          "networking.k8s.io/IngressClass",
          "scheduling.k8s.io/PriorityClass",
          "storage.k8s.io/StorageClass",
          "batch/CronJob",
          "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
          "admissionregistration.k8s.io/MutatingWebhookConfiguration");

  private HealthRules() {}

  /**
   * How a claim's storage class binds volumes (its {@code volumeBindingMode}), which only the
   * caller can know: the claim names the class, or none for the cluster's default class.
   */
  public enum VolumeBinding {
    /** {@code Immediate}: a claim is bound as soon as it is created; Pending is in progress. */
    IMMEDIATE,
    /**
     * {@code WaitForFirstConsumer}: a claim stays Pending until a pod using it is scheduled, so a
     * Pending claim is current (the consuming pod's own health covers the provisioning).
     */
    WAIT_FOR_FIRST_CONSUMER
  }

  /**
   * Whether objects of this kind have a rule beyond "ready when applied". False only for built-in
   * kinds known to carry no status worth waiting for (ConfigMap, Secret, ServiceAccount, Namespace,
   * RBAC, NetworkPolicy, Ingress, CronJob, StorageClass, PriorityClass, webhook configurations,
   * ...); true for the kinds with their own rule and for every other kind, custom resources
   * included, since they may report {@code observedGeneration} and conditions.
   *
   * @param group the API group, {@code ""} for the core group
   * @param kind the kind, e.g. {@code Deployment}
   * @return whether {@link #of} can say anything but current for such an object
   */
  public static boolean hasRule(String group, String kind) {
    requireNonNull(group, "group");
    requireNonNull(kind, "kind");
    return !READY_WHEN_APPLIED.contains(group + "/" + kind);
  }

  /**
   * The health of one object, a PersistentVolumeClaim's storage class taken as binding immediately.
   *
   * @param object the object as read from the API server (nested maps, lists, strings, booleans,
   *     numbers)
   * @param pods the pods of the workload's current revision (a Deployment's current ReplicaSet, a
   *     StatefulSet's, DaemonSet's, ReplicaSet's or Job's pods), possibly empty; used to fail fast
   *     with the reason a pod cannot become ready, ignored for other kinds
   * @return the verdict; its reason starts with the object ({@code Kind namespace/name: })
   * @throws IllegalArgumentException when the object has no apiVersion, kind or metadata.name
   */
  public static Health of(Map<String, Object> object, List<Map<String, Object>> pods) {
    return of(object, pods, VolumeBinding.IMMEDIATE);
  }

  /**
   * The health of one object.
   *
   * @param object the object as read from the API server (nested maps, lists, strings, booleans,
   *     numbers)
   * @param pods the pods of the workload's current revision, possibly empty (see {@link #of(Map,
   *     List)})
   * @param claimBinding for a PersistentVolumeClaim, how its storage class (its {@code
   *     spec.storageClassName}, or the cluster's default class when unset) binds; ignored for other
   *     kinds
   * @return the verdict; its reason starts with the object ({@code Kind namespace/name: })
   * @throws IllegalArgumentException when the object has no apiVersion, kind or metadata.name
   */
  public static Health of(
      Map<String, Object> object, List<Map<String, Object>> pods, VolumeBinding claimBinding) {
    return of(object, pods, claimBinding, true);
  }

  /**
   * The health of one object.
   *
   * @param object the object as read from the API server (nested maps, lists, strings, booleans,
   *     numbers)
   * @param pods the pods of the workload's current revision, possibly empty (see {@link #of(Map,
   *     List)})
   * @param claimBinding for a PersistentVolumeClaim, how its storage class binds (see {@link
   *     #of(Map, List, VolumeBinding)}); ignored for other kinds
   * @param waitForLoadBalancer for a Service of type LoadBalancer: whether it is in progress until
   *     it has an address ({@code status.loadBalancer.ingress}), as Helm's {@code --wait} and
   *     kstatus have it, or current once it exists; ignored for other objects
   * @return the verdict; its reason starts with the object ({@code Kind namespace/name: })
   * @throws IllegalArgumentException when the object has no apiVersion, kind or metadata.name
   */
  public static Health of(
      Map<String, Object> object,
      List<Map<String, Object>> pods,
      VolumeBinding claimBinding,
      boolean waitForLoadBalancer) {
    return of(object, pods, claimBinding, waitForLoadBalancer, CustomHealth.none());
  }

  /**
   * The health of one object, by {@code custom}'s rule for its kind when it has one (a user's rule,
   * or a shipped default), else by the built-in rules. An object being deleted is in progress
   * whatever a rule says.
   *
   * @param object the object as read from the API server
   * @param pods the pods of the workload's current revision, possibly empty (see {@link #of(Map,
   *     List)})
   * @param claimBinding for a PersistentVolumeClaim, how its storage class binds
   * @param waitForLoadBalancer for a Service of type LoadBalancer: whether it waits for an address
   * @param custom the rules asked first ({@link CustomHealth#none()}: the built-in rules alone)
   * @return the verdict; its reason starts with the object ({@code Kind namespace/name: })
   * @throws IllegalArgumentException when the object has no apiVersion, kind or metadata.name
   */
  public static Health of(
      Map<String, Object> object,
      List<Map<String, Object>> pods,
      VolumeBinding claimBinding,
      boolean waitForLoadBalancer,
      CustomHealth custom) {
    requireNonNull(object, "object");
    requireNonNull(pods, "pods");
    requireNonNull(claimBinding, "claimBinding");
    requireNonNull(custom, "custom");
    Subject s = Subject.of(object);
    if (!hasRule(s.group(), s.kind())) {
      return Health.current();
    }
    if (custom.covers(s.group(), s.kind())) {
      if (!s.string("metadata", "deletionTimestamp").isEmpty()) {
        return s.inProgress("being deleted");
      }
      Health ruled = custom.judge(object);
      if (ruled instanceof Health.InProgress p) {
        return s.inProgress(p.reason());
      }
      if (ruled instanceof Health.Failed f) {
        return s.failed(f.reason());
      }
      if (ruled != null) {
        return ruled;
      }
    }
    if (!s.string("metadata", "deletionTimestamp").isEmpty()) {
      if (s.group().equals("batch") && s.kind().equals("Job")) {
        Health finished = KindRules.job(s, Condition.of(object), List.of());
        if (!(finished instanceof Health.InProgress)) {
          return finished;
        }
      }
      return s.inProgress("being deleted");
    }
    Long generation = Trees.number(object, "metadata", "generation");
    Long observed = Trees.number(object, "status", "observedGeneration");
    if (generation != null && observed != null && !generationObserved(generation, observed)) {
      return s.inProgress(
          "generation " + generation + " not yet observed (observed " + observed + ")");
    }
    List<Condition> conditions = Condition.of(object);
    for (Condition c : conditions) {
      if (c.type().equals("Stalled") && c.holds()) {
        return s.failed(c.describe());
      }
      if (c.type().equals("Reconciling") && c.holds()) {
        return s.inProgress(c.describe());
      }
    }
    return switch (s.group() + "/" + s.kind()) {
      case "apps/Deployment" -> KindRules.deployment(s, conditions, pods);
      case "apps/StatefulSet" -> KindRules.statefulSet(s, pods);
      case "apps/DaemonSet" -> KindRules.daemonSet(s, pods);
      case "apps/ReplicaSet" -> KindRules.replicaSet(s, conditions, pods);
      case "batch/Job" -> KindRules.job(s, conditions, pods);
      case "/Pod" -> KindRules.pod(s, conditions);
      case "/PersistentVolumeClaim" -> KindRules.claim(s, claimBinding);
      case "/Service" -> KindRules.service(s, waitForLoadBalancer);
      case "apiextensions.k8s.io/CustomResourceDefinition" ->
          KindRules.customResourceDefinition(s, conditions);
      case "apiregistration.k8s.io/APIService" -> KindRules.apiService(s, conditions);
      default -> generic(s, conditions);
    };
  }

  /**
   * Whether an object's controller has seen its latest spec: {@code status.observedGeneration} is
   * not behind {@code metadata.generation}. Until then its status describes an older spec, and the
   * object is in progress whatever the status says.
   *
   * @param generation {@code metadata.generation}
   * @param observedGeneration {@code status.observedGeneration}
   * @return whether {@code observedGeneration >= generation}
   */
  public static boolean generationObserved(long generation, long observedGeneration) {
    return observedGeneration >= generation;
  }

  /**
   * Whether a pod cannot become ready by waiting: a container (init containers first) waiting in a
   * crash loop, an image pull back-off or a container configuration error. These are the pods
   * {@link #of} fails a workload on.
   *
   * @param pod the pod as read from the API server
   */
  public static boolean podCannotBecomeReady(Map<String, Object> pod) {
    return PodFailure.of(requireNonNull(pod, "pod")) != null;
  }

  /**
   * Whether a workload's verdict names a pod: it {@linkplain #podCannotBecomeReady cannot become
   * ready} (the verdict fails), or the scheduler finds no node for it ({@link PodPending}: the
   * verdict stays in progress and says why, and so does a wait that times out). A caller that must
   * first find out which workload revision owns a pod (a Deployment's pods are its ReplicaSets')
   * needs to only for such a pod.
   *
   * @param pod the pod as read from the API server
   */
  public static boolean podNamedInVerdict(Map<String, Object> pod) {
    requireNonNull(pod, "pod");
    return PodFailure.of(pod) != null || PodPending.of(pod) != null;
  }

  private static Health generic(Subject s, List<Condition> conditions) {
    for (String type : List.of("Ready", "Available")) {
      Condition c = Condition.find(conditions, type);
      if (c != null && !c.holds()) {
        return s.inProgress(c.describe());
      }
    }
    return Health.current();
  }
}
