/**
 * Capstan's Kubernetes adapters on the official client-java: {@link
 * dev.capstan.k8s.KubernetesOrchestrator} and {@link dev.capstan.k8s.KubernetesStore} for the
 * release engine, {@link dev.capstan.k8s.KubernetesPlatformCluster} for the platform update engine,
 * all over one {@link dev.capstan.k8s.KubeClients} (kubeconfig, in-cluster or a caller's client),
 * whose {@link dev.capstan.k8s.RequestCounter} counts every request.
 *
 * <h2>Mapping</h2>
 *
 * <ul>
 *   <li>A service is an {@code apps/v1} Deployment with one container named after it, selected by
 *       the pod label {@code capstan.dev/service=<name>}, plus a {@code v1} Service (same name,
 *       same selector, {@code targetPort} = port) when it declares ports. A secret is a Secret, a
 *       configmap a ConfigMap, a volume a PersistentVolumeClaim; namespaces and storage classes are
 *       only observed (and a namespace created on request).
 *   <li>Every write of an object is a server-side apply under field manager {@code capstan},
 *       forced: the plan has already decided (an adoption needs {@code adopt}, a repair is drift),
 *       so Capstan takes the fields it applies from other managers instead of failing; fields it
 *       does not apply stay theirs.
 *   <li>The ownership stamp is in annotations ({@code capstan.dev/release} = {@code ns/name},
 *       {@code capstan.dev/release-id}, {@code capstan.dev/revision}, {@code
 *       capstan.dev/content-hash}) and, for selection, labels ({@code
 *       app.kubernetes.io/managed-by=capstan}, and {@code capstan.dev/release-namespace}, {@code
 *       -name}, {@code -id} when the value is a valid label value).
 *   <li>Observation is one LIST per kind and namespace (paged; Deployments and Services for
 *       services), filtered to the names asked for. The spec is read back from exactly the fields
 *       Capstan writes, keeping only the map keys and list items Capstan's own field manager owns
 *       ({@code metadata.managedFields}, read from the raw JSON because client-java's models drop
 *       it), with quantities in the spelling the spec used; so an untouched object hashes like its
 *       spec, an edited one does not, and keys other tools add are not drift.
 *   <li>Release records are Secrets of type {@code capstan.dev/release.v1} (one per revision,
 *       chunked beyond 1 MB, verified by SHA-256 on read, compare-and-set on resourceVersion); the
 *       operation lease is a {@code coordination.k8s.io/v1} Lease.
 *   <li>Rollouts are watched, never polled, with {@code kubectl rollout status} semantics, failing
 *       fast on {@code ProgressDeadlineExceeded}, {@code FailedCreate} and new pods that cannot
 *       start.
 * </ul>
 *
 * <p>Every failed request is translated once, here, into the calling port's exception ({@link
 * dev.capstan.release.ClusterException} or {@link dev.capstan.update.ClusterException}) naming the
 * operation, kind, object and HTTP status; response bodies are never included, so Secret values
 * cannot leak. Everything but the five public classes is package-private.
 */
@NullMarked
package dev.capstan.k8s;

import org.jspecify.annotations.NullMarked;
