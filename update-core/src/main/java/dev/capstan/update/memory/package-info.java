/**
 * An in-memory {@link dev.capstan.update.cluster.PlatformCluster} for host tests and demos: a
 * product feature, not test scaffolding.
 *
 * <p>{@link dev.capstan.update.memory.InMemoryPlatformCluster} holds Deployments (with simulated
 * ready pods whose image ids carry the digests you {@link
 * dev.capstan.update.memory.InMemoryPlatformCluster#publishImage publish}), explicit pods, and
 * CRDs. Patches take effect at once and start a simulated rollout that completes on the next status
 * read, unless the new template names an image marked {@link
 * dev.capstan.update.memory.InMemoryPlatformCluster#neverReady never ready}: that rollout ends with
 * {@code Progressing=False, reason ProgressDeadlineExceeded}, as a real one would. {@link
 * dev.capstan.common.FaultPlan} injects failures into chosen calls; every write is recorded in a
 * log ({@link dev.capstan.update.memory.InMemoryPlatformCluster#patches()}, {@link
 * dev.capstan.update.memory.InMemoryPlatformCluster#writes()}).
 */
@NullMarked
package dev.capstan.update.memory;

import org.jspecify.annotations.NullMarked;
