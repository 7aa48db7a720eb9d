/**
 * The {@link dev.capstan.update.cluster.PlatformCluster} port and the values that cross it.
 *
 * <p>The update engine sees a cluster only through this port: an {@link
 * dev.capstan.update.cluster.InventorySnapshot} read once for planning (deployments with their
 * containers, images, env, labels, annotations and selector; pods with their ready containers'
 * image ids; live CRDs), single-deployment reads, a narrow {@link
 * dev.capstan.update.cluster.DeploymentPatch} (container images or env values, labels, annotations,
 * and nothing else), {@link dev.capstan.update.cluster.RolloutStatus} reads with {@code kubectl
 * rollout status} semantics, and CRD apply. No Kubernetes client type appears here; the Kubernetes
 * adapter lives in {@code release-k8s} and an in-memory one in {@link dev.capstan.update.memory}.
 *
 * <p>Records here mirror what a cluster reports: absent strings are empty, collections are
 * immutable copies, maps are sorted by key so that everything derived from them is deterministic.
 */
@NullMarked
package dev.capstan.update.cluster;

import org.jspecify.annotations.NullMarked;
