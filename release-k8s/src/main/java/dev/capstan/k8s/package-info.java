/**
 * Capstan's Kubernetes adapters on the official client-java: {@link
 * dev.capstan.k8s.KubernetesOrchestrator} and {@link dev.capstan.k8s.KubernetesStore} for the
 * release engine, {@link dev.capstan.k8s.KubernetesPlatformCluster} for the platform update engine,
 * all over one {@link dev.capstan.k8s.KubeClients} (kubeconfig, in-cluster or a caller's client),
 * whose {@link dev.capstan.k8s.RequestCounter} counts every request. {@link
 * dev.capstan.k8s.KubeClients#asServiceAccount} gives clients that act as a service account
 * (impersonation), and {@link dev.capstan.k8s.AccessReviews} asks whether their user may send every
 * request a cast of a plan sends, before it writes anything.
 *
 * <h2>Mapping</h2>
 *
 * <ul>
 *   <li>One generic path for every kind: release-core renders typed specs to manifests, and the
 *       orchestrator addresses any object through client-java's dynamic API at the URL of a REST
 *       mapping read from discovery ({@code GET /api}, {@code /apis}, aggregated), kept for the
 *       adapter's life and read again once when a kind is unknown. No per-kind code but health.
 *   <li>Every write of an object is a server-side apply under field manager {@code capstan},
 *       forced: the plan has already decided (an adoption needs {@code adopt}, a repair is drift),
 *       so Capstan takes the fields it applies from other managers instead of failing; fields it
 *       does not apply stay theirs.
 *   <li>The ownership stamp is in annotations ({@code capstan.dev/release} = {@code ns/name},
 *       {@code capstan.dev/release-id}, {@code capstan.dev/revision}, {@code
 *       capstan.dev/content-hash}) and, for selection, labels ({@code
 *       app.kubernetes.io/managed-by=capstan}, and {@code capstan.dev/release-namespace}, {@code
 *       -name}, {@code -id} when the value is a valid label value).
 *   <li>Observation is one LIST per kind and namespace (paged), filtered to the names asked for;
 *       drift comes from {@code metadata.managedFields} (see {@code Drift}), so a no-op plan needs
 *       nothing more.
 *   <li>Release records are Secrets of type {@code capstan.dev/release.v1} (one per revision,
 *       chunked beyond 1 MB, verified by SHA-256 on read, compare-and-set on resourceVersion); the
 *       operation lease is a {@code coordination.k8s.io/v1} Lease.
 *   <li>Health is watched, never polled, with release-core's {@code HealthRules} (kstatus
 *       semantics), failing fast with the reason.
 * </ul>
 *
 * <p>Every failed request is translated once, here, into a {@link
 * dev.capstan.common.ClusterException} naming the operation, kind, object and HTTP status; response
 * bodies are never included, so Secret values cannot leak. Everything but the five public classes
 * is package-private.
 */
@NullMarked
package dev.capstan.k8s;

import org.jspecify.annotations.NullMarked;
