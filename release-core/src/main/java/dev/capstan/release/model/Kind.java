package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A kind of Kubernetes object as a value: API group, version, kind, whether its objects are
 * namespaced, whether it is <em>shared</em> (referenced by releases, never owned or deleted:
 * Namespace, StorageClass), and its place in apply order.
 *
 * <p>Two kinds are equal when their group and kind are equal: the version is how the object is
 * addressed, not what it is, so a release that moves a HorizontalPodAutoscaler from {@code
 * autoscaling/v2beta2} to {@code autoscaling/v2} still owns the same object.
 *
 * <p><b>Apply order</b> comes from one rank table over the built-in kinds (see {@link #rank()} and
 * ARCHITECTURE.md, "Order"): definitions and namespaces first, then cluster-wide classes and RBAC,
 * then namespaced identity and policy, config and storage, workloads, then what routes to or scales
 * workloads, then webhooks; kinds the table does not know (custom resources) come after every
 * built-in kind, so a custom resource always follows its CRD. Prune and uninstall go in reverse.
 */
public final class Kind implements Comparable<Kind> {
  /** The rank of kinds the table does not know: after every built-in kind. */
  public static final int UNKNOWN_RANK = 80;

  private static final Pattern KIND_NAME = Pattern.compile("[A-Z][A-Za-z0-9]{0,62}");
  private static final Pattern GROUP =
      Pattern.compile("([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?");
  private static final Pattern VERSION = Pattern.compile("v[0-9]+((alpha|beta)[0-9]+)?");

  private static final Map<String, Kind> BUILT_IN = new LinkedHashMap<>();

  // rank 0: definitions and namespaces
  /** {@code apiextensions.k8s.io/v1} CustomResourceDefinition (cluster-scoped). */
  public static final Kind CUSTOM_RESOURCE_DEFINITION =
      builtIn("apiextensions.k8s.io", "v1", "CustomResourceDefinition", false, false, 0);

  /** {@code v1} Namespace: shared and cluster-scoped. */
  public static final Kind NAMESPACE = builtIn("", "v1", "Namespace", false, true, 0);

  // rank 10: cluster-wide classes and RBAC
  /**
   * {@code storage.k8s.io/v1} StorageClass (cluster-scoped): owned by the release whose document
   * creates it (an install manifest that ships its provisioner's class); a volume claim naming one
   * needs no object of it (static binding names a class no object backs).
   */
  public static final Kind STORAGE_CLASS =
      builtIn("storage.k8s.io", "v1", "StorageClass", false, false, 10);

  /** {@code node.k8s.io/v1} RuntimeClass (cluster-scoped): before the pods that name it. */
  public static final Kind RUNTIME_CLASS =
      builtIn("node.k8s.io", "v1", "RuntimeClass", false, false, 10);

  /** {@code storage.k8s.io/v1} CSIDriver (cluster-scoped): before the claims of its driver. */
  public static final Kind CSI_DRIVER =
      builtIn("storage.k8s.io", "v1", "CSIDriver", false, false, 10);

  /** {@code scheduling.k8s.io/v1} PriorityClass (cluster-scoped). */
  public static final Kind PRIORITY_CLASS =
      builtIn("scheduling.k8s.io", "v1", "PriorityClass", false, false, 10);

  /** {@code networking.k8s.io/v1} IngressClass (cluster-scoped). */
  public static final Kind INGRESS_CLASS =
      builtIn("networking.k8s.io", "v1", "IngressClass", false, false, 10);

  /** {@code rbac.authorization.k8s.io/v1} ClusterRole (cluster-scoped). */
  public static final Kind CLUSTER_ROLE =
      builtIn("rbac.authorization.k8s.io", "v1", "ClusterRole", false, false, 10);

  /** {@code rbac.authorization.k8s.io/v1} ClusterRoleBinding (cluster-scoped). */
  public static final Kind CLUSTER_ROLE_BINDING =
      builtIn("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", false, false, 10);

  /** {@code v1} PersistentVolume (cluster-scoped). */
  public static final Kind PERSISTENT_VOLUME =
      builtIn("", "v1", "PersistentVolume", false, false, 10);

  // rank 20: namespaced identity and policy
  /** {@code v1} ServiceAccount. */
  public static final Kind SERVICE_ACCOUNT = builtIn("", "v1", "ServiceAccount", true, false, 20);

  /** {@code rbac.authorization.k8s.io/v1} Role. */
  public static final Kind ROLE =
      builtIn("rbac.authorization.k8s.io", "v1", "Role", true, false, 20);

  /** {@code rbac.authorization.k8s.io/v1} RoleBinding. */
  public static final Kind ROLE_BINDING =
      builtIn("rbac.authorization.k8s.io", "v1", "RoleBinding", true, false, 20);

  /** {@code v1} ResourceQuota. */
  public static final Kind RESOURCE_QUOTA = builtIn("", "v1", "ResourceQuota", true, false, 20);

  /** {@code v1} LimitRange. */
  public static final Kind LIMIT_RANGE = builtIn("", "v1", "LimitRange", true, false, 20);

  /** {@code networking.k8s.io/v1} NetworkPolicy: before workloads, so pods start protected. */
  public static final Kind NETWORK_POLICY =
      builtIn("networking.k8s.io", "v1", "NetworkPolicy", true, false, 20);

  // rank 30: storage, then config (volume claims 30, configmaps 31, secrets 32)
  /** {@code v1} Secret. */
  public static final Kind SECRET = builtIn("", "v1", "Secret", true, false, 32);

  /** {@code v1} ConfigMap. */
  public static final Kind CONFIG_MAP = builtIn("", "v1", "ConfigMap", true, false, 31);

  /** {@code v1} PersistentVolumeClaim. */
  public static final Kind PERSISTENT_VOLUME_CLAIM =
      builtIn("", "v1", "PersistentVolumeClaim", true, false, 30);

  // rank 40: workloads
  /** {@code apps/v1} Deployment. */
  public static final Kind DEPLOYMENT = builtIn("apps", "v1", "Deployment", true, false, 40);

  /** {@code apps/v1} StatefulSet. */
  public static final Kind STATEFUL_SET = builtIn("apps", "v1", "StatefulSet", true, false, 40);

  /** {@code apps/v1} DaemonSet. */
  public static final Kind DAEMON_SET = builtIn("apps", "v1", "DaemonSet", true, false, 40);

  /** {@code apps/v1} ReplicaSet. */
  public static final Kind REPLICA_SET = builtIn("apps", "v1", "ReplicaSet", true, false, 40);

  /** {@code v1} Pod. */
  public static final Kind POD = builtIn("", "v1", "Pod", true, false, 40);

  /** {@code v1} ReplicationController. */
  public static final Kind REPLICATION_CONTROLLER =
      builtIn("", "v1", "ReplicationController", true, false, 40);

  /** {@code batch/v1} Job. */
  public static final Kind JOB = builtIn("batch", "v1", "Job", true, false, 40);

  /** {@code batch/v1} CronJob. */
  public static final Kind CRON_JOB = builtIn("batch", "v1", "CronJob", true, false, 40);

  // rank 50: what routes to, scales or protects workloads
  /** {@code v1} Service. */
  public static final Kind SERVICE = builtIn("", "v1", "Service", true, false, 50);

  /** {@code networking.k8s.io/v1} Ingress. */
  public static final Kind INGRESS = builtIn("networking.k8s.io", "v1", "Ingress", true, false, 50);

  /** {@code autoscaling/v2} HorizontalPodAutoscaler. */
  public static final Kind HORIZONTAL_POD_AUTOSCALER =
      builtIn("autoscaling", "v2", "HorizontalPodAutoscaler", true, false, 50);

  /** {@code policy/v1} PodDisruptionBudget. */
  public static final Kind POD_DISRUPTION_BUDGET =
      builtIn("policy", "v1", "PodDisruptionBudget", true, false, 50);

  // rank 60: webhooks and API services, last so that they never block the release's own objects
  /** {@code admissionregistration.k8s.io/v1} MutatingWebhookConfiguration (cluster-scoped). */
  public static final Kind MUTATING_WEBHOOK_CONFIGURATION =
      builtIn(
          "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", false, false, 60);

  /** {@code admissionregistration.k8s.io/v1} ValidatingWebhookConfiguration (cluster-scoped). */
  public static final Kind VALIDATING_WEBHOOK_CONFIGURATION =
      builtIn(
          "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", false, false, 60);

  /** {@code apiregistration.k8s.io/v1} APIService (cluster-scoped). */
  public static final Kind API_SERVICE =
      builtIn("apiregistration.k8s.io", "v1", "APIService", false, false, 60);

  private final String group;
  private final String version;
  private final String kind;
  private final boolean namespaced;
  private final boolean shared;
  private final int rank;

  private Kind(
      String group, String version, String kind, boolean namespaced, boolean shared, int rank) {
    this.group = group;
    this.version = version;
    this.kind = kind;
    this.namespaced = namespaced;
    this.shared = shared;
    this.rank = rank;
  }

  private static Kind builtIn(
      String group, String version, String kind, boolean namespaced, boolean shared, int rank) {
    Kind k = new Kind(group, version, kind, namespaced, shared, rank);
    BUILT_IN.put(k.key(), k);
    return k;
  }

  /**
   * The kind of an object with {@code apiVersion} and {@code kind}: the built-in kind (at the given
   * version) when the table knows it, else a custom kind that is namespaced as {@code namespaced}
   * says, ranked after every built-in kind.
   *
   * @throws IllegalArgumentException naming the value when the apiVersion or kind is malformed
   */
  public static Kind of(String apiVersion, String kind, boolean namespaced) {
    requireNonNull(apiVersion, "apiVersion");
    requireNonNull(kind, "kind");
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    check(group, version, kind);
    Kind known = BUILT_IN.get(key(group, kind));
    if (known != null) {
      return known.version.equals(version) ? known : known.atVersion(version);
    }
    return new Kind(group, version, kind, namespaced, false, UNKNOWN_RANK);
  }

  /** A custom (not built-in) kind, e.g. {@code custom("example.com", "v1", "Widget", true)}. */
  public static Kind custom(String group, String version, String kind, boolean namespaced) {
    return of(group.isEmpty() ? version : group + "/" + version, kind, namespaced);
  }

  /** The built-in kind with this group and kind, if the rank table has it. */
  public static @Nullable Kind builtIn(String group, String kind) {
    return BUILT_IN.get(key(group, kind));
  }

  /** Every built-in kind, in table order. */
  public static Map<String, Kind> builtIns() {
    return Collections.unmodifiableMap(BUILT_IN);
  }

  /**
   * The kind a {@link #key()} names, e.g. {@code apps/Deployment} or {@code Secret}; a kind the
   * table does not know is taken as namespaced when {@code namespaced}, at version {@code v1}
   * (custom kinds are addressed through discovery, which knows the served version).
   */
  public static Kind parseKey(String key, boolean namespaced) {
    int slash = key.lastIndexOf('/');
    String group = slash < 0 ? "" : key.substring(0, slash);
    String kind = slash < 0 ? key : key.substring(slash + 1);
    Kind known = BUILT_IN.get(key(group, kind));
    if (known != null) {
      return known;
    }
    check(group, "v1", kind);
    return new Kind(group, "v1", kind, namespaced, false, UNKNOWN_RANK);
  }

  private static void check(String group, String version, String kind) {
    if (!KIND_NAME.matcher(kind).matches()) {
      throw new IllegalArgumentException(
          "kind must start with an upper-case letter and hold only letters and digits (at most 63):"
              + " "
              + Escapes.quote(kind));
    }
    if (group.length() > 253 || !GROUP.matcher(group).matches()) {
      throw new IllegalArgumentException(
          "apiVersion group must be empty or a DNS-1123 subdomain: " + Escapes.quote(group));
    }
    if (!VERSION.matcher(version).matches()) {
      throw new IllegalArgumentException(
          "apiVersion version must look like v1, v2beta1 or v1alpha3: " + Escapes.quote(version));
    }
  }

  private static String key(String group, String kind) {
    return group.isEmpty() ? kind : group + "/" + kind;
  }

  /** This kind at another version. */
  public Kind atVersion(String version) {
    check(group, version, kind);
    return new Kind(group, version, kind, namespaced, shared, rank);
  }

  /** The API group, {@code ""} for the core group. */
  public String group() {
    return group;
  }

  /** The API version, e.g. {@code v1}. */
  public String version() {
    return version;
  }

  /** The kind, e.g. {@code Deployment}. */
  public String kind() {
    return kind;
  }

  /** {@code v1} or {@code apps/v1}, as in {@code apiVersion:}. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** Whether objects of this kind live in a namespace. */
  public boolean namespaced() {
    return namespaced;
  }

  /** Whether objects of this kind live outside any namespace. */
  public boolean clusterScoped() {
    return !namespaced;
  }

  /** Whether this kind is shared: referenced by releases, never owned or deleted by one. */
  public boolean shared() {
    return shared;
  }

  /** Whether the rank table knows this kind. */
  public boolean builtIn() {
    return rank < UNKNOWN_RANK;
  }

  /** Position in apply order (0 first, {@link #UNKNOWN_RANK} for custom kinds). */
  public int rank() {
    return rank;
  }

  /** Whether this is the CustomResourceDefinition kind. */
  public boolean isCrd() {
    return equals(CUSTOM_RESOURCE_DEFINITION);
  }

  /** Whether this is the PersistentVolumeClaim kind (whose data a reclaim policy protects). */
  public boolean isVolumeClaim() {
    return equals(PERSISTENT_VOLUME_CLAIM);
  }

  /** {@code group/Kind}, or {@code Kind} for the core group: stable, used in keys. */
  public String key() {
    return key(group, kind);
  }

  /** The lower-case kind, as in messages: {@code deployment}. */
  public String lowerName() {
    return kind.toLowerCase(Locale.ROOT);
  }

  /** By rank, then key. */
  @Override
  public int compareTo(Kind other) {
    int byRank = Integer.compare(rank, other.rank);
    return byRank != 0 ? byRank : key().compareTo(other.key());
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof Kind other && group.equals(other.group) && kind.equals(other.kind);
  }

  @Override
  public int hashCode() {
    return group.hashCode() * 31 + kind.hashCode();
  }

  @Override
  public String toString() {
    return key();
  }

  /**
   * The kind a CustomResourceDefinition defines, at its storage version (or first served), or
   * {@code null} when the tree does not say.
   */
  public static @Nullable Kind definedBy(Map<?, ?> crd) {
    if (!(crd.get("spec") instanceof Map<?, ?> spec)
        || !(spec.get("group") instanceof String group)
        || !(spec.get("names") instanceof Map<?, ?> names)
        || !(names.get("kind") instanceof String kind)) {
      return null;
    }
    String version = "v1";
    if (spec.get("versions") instanceof List<?> versions) {
      for (Object v : versions) {
        if (v instanceof Map<?, ?> ver && ver.get("name") instanceof String n) {
          if (Boolean.TRUE.equals(ver.get("storage"))) {
            version = n;
            break;
          }
          if (Boolean.TRUE.equals(ver.get("served"))) {
            version = n;
          }
        }
      }
    }
    boolean namespaced = !"Cluster".equals(spec.get("scope"));
    try {
      return custom(group, version, kind, namespaced);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "CustomResourceDefinition for "
              + Escapes.quote(group + "/" + kind)
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
