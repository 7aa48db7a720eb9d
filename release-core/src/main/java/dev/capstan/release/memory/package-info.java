/**
 * In-memory adapters, shipped for host applications' tests and demos: {@link
 * dev.capstan.release.memory.InMemoryCluster} implements both ports, with a {@link
 * dev.capstan.common.FaultPlan}, out-of-band edits and an operation log; {@link
 * dev.capstan.common.ManualClock} drives time.
 */
@NullMarked
package dev.capstan.release.memory;

import org.jspecify.annotations.NullMarked;
