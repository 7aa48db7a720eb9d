package dev.capstan.k8s;

import dev.capstan.release.model.Kind;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The REST mapping of the Kubernetes kinds every supported API server (1.25 and later) serves at
 * their GA versions: a release made of them needs no discovery round (two requests and a parse of
 * every served group) before its first request. A kind at another version, and every custom
 * resource, is looked up in {@link Discovery} as before, so a cluster that does not serve one gets
 * the same error naming what it does serve.
 */
final class BuiltInKinds {
  private static final Map<String, Discovery.Resource> BY_KIND = new HashMap<>();

  static {
    core("Namespace", "namespaces", false);
    core("ConfigMap", "configmaps", true);
    core("Secret", "secrets", true);
    core("Service", "services", true);
    core("ServiceAccount", "serviceaccounts", true);
    core("PersistentVolumeClaim", "persistentvolumeclaims", true);
    core("PersistentVolume", "persistentvolumes", false);
    core("Pod", "pods", true);
    core("LimitRange", "limitranges", true);
    core("ResourceQuota", "resourcequotas", true);
    add("apps", "v1", "Deployment", "deployments", true);
    add("apps", "v1", "StatefulSet", "statefulsets", true);
    add("apps", "v1", "DaemonSet", "daemonsets", true);
    add("apps", "v1", "ReplicaSet", "replicasets", true);
    add("batch", "v1", "Job", "jobs", true);
    add("batch", "v1", "CronJob", "cronjobs", true);
    add("networking.k8s.io", "v1", "Ingress", "ingresses", true);
    add("networking.k8s.io", "v1", "IngressClass", "ingressclasses", false);
    add("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true);
    add("rbac.authorization.k8s.io", "v1", "Role", "roles", true);
    add("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true);
    add("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false);
    add("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false);
    add("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true);
    add("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true);
    add("storage.k8s.io", "v1", "StorageClass", "storageclasses", false);
    add("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false);
    add("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false);
    add("storage.k8s.io", "v1", "CSIDriver", "csidrivers", false);
    add("coordination.k8s.io", "v1", "Lease", "leases", true);
    add(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false);
  }

  private BuiltInKinds() {}

  /** The resource serving {@code kind} at its own version, when it is a built-in GA kind. */
  static Optional<Discovery.Resource> of(Kind kind) {
    return Optional.ofNullable(BY_KIND.get(key(kind.group(), kind.version(), kind.kind())));
  }

  /** Every built-in resource of the table (for the test that checks it against discovery). */
  static java.util.Collection<Discovery.Resource> all() {
    return java.util.List.copyOf(BY_KIND.values());
  }

  private static void core(String kind, String plural, boolean namespaced) {
    add("", "v1", kind, plural, namespaced);
  }

  private static void add(
      String group, String version, String kind, String plural, boolean namespaced) {
    BY_KIND.put(
        key(group, version, kind),
        new Discovery.Resource(group, version, plural, kind, namespaced));
  }

  private static String key(String group, String version, String kind) {
    return group + "/" + version + "/" + kind;
  }
}
