/**
 * The ports through which the release engine reaches the world: {@link
 * dev.capstan.release.port.Orchestrator} is the cluster (observe objects of any kind in batches,
 * write them with an ownership stamp, delete only what a release owns, wait for health); {@link
 * dev.capstan.release.port.Store} is the persistence (release records and the operation lease).
 * {@code InMemoryCluster} implements both for tests; {@code release-k8s} implements them on
 * Kubernetes.
 */
@NullMarked
package dev.capstan.release.port;

import org.jspecify.annotations.NullMarked;
