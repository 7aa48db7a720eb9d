/**
 * The applier: turns an {@link dev.capstan.update.plan.UpdatePlan} into patches through the {@link
 * dev.capstan.update.cluster.PlatformCluster} port.
 *
 * <p>{@link dev.capstan.update.apply.UpdateApplier#apply} applies the plan's CRDs first (each
 * waited for {@code Established} and {@code NamesAccepted}; a CRD failure stops before any image is
 * patched, and CRDs are never rolled back), then patches one workload at a time in rollout order
 * (components sharing a Deployment are one patch; a workload already on its target images is {@code
 * skipped}), waiting for each rollout through a {@link dev.capstan.update.apply.RolloutWaiter} with
 * {@code kubectl rollout status} semantics. It stops at the first failure and, with {@code
 * rollbackOnFailure}, restores every touched workload (the failed one included) in reverse order.
 * Each workload ends {@link dev.capstan.update.result.WorkloadStatus updated, skipped, failed,
 * rolled-back, rollback-failed or not-attempted}; its manual recovery commands are computed before
 * anything runs and are POSIX-shell quoted, so a hostile image or name stays one argument.
 *
 * <p>Failures are values ({@link dev.capstan.update.result.UpdateResult#failed()}), not exceptions:
 * the caller decides. Time passes only through the injected {@link java.time.Clock} and {@link
 * dev.capstan.common.Sleeper}.
 */
@NullMarked
package dev.capstan.update.apply;

import org.jspecify.annotations.NullMarked;
