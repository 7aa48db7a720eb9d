/**
 * The ports through which the release engine reaches the world: {@link
 * dev.capstan.release.port.Orchestrator} runs services, {@link dev.capstan.release.port.Store}
 * keeps the other objects, the release records and the operation lease. Both observe objects in
 * batches, write them with an ownership stamp and delete only what a release owns. {@code
 * InMemoryCluster} implements both for tests; {@code release-k8s} implements them on Kubernetes.
 */
@NullMarked
package dev.capstan.release.port;

import org.jspecify.annotations.NullMarked;
