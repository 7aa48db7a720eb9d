/**
 * The pure update planner and the plan it produces.
 *
 * <p>{@link dev.capstan.update.plan.UpdatePlanner#plan} is a function of an {@link
 * dev.capstan.update.cluster.InventorySnapshot}, a {@link
 * dev.capstan.update.manifest.PlatformRelease}, the host's {@link
 * dev.capstan.update.catalog.Catalog} and a {@link dev.capstan.update.plan.Selection}: no I/O, same
 * inputs, same plan. The {@link dev.capstan.update.plan.UpdatePlan} has one {@link
 * dev.capstan.update.plan.PlanRow} per catalog component, in catalog (rollout) order, each with a
 * {@link dev.capstan.update.plan.PlanAction} ({@code update}, {@code unchanged}, {@code skip},
 * {@code blocked}) and a {@link dev.capstan.update.plan.RowReason} (a code and its values, no
 * command-line flag: a host words it); the installed version ({@code v0.4.0}, or {@code mixed
 * (v0.4.0, v0.5.0)}); the CRD preview ({@code create}, {@code update}, or {@code skipped} when the
 * live spec is equal); the image builds ({@code build} or {@code reuse}, filled in by {@link
 * dev.capstan.update.build.ImageBuilds#plan}); the warnings; and what an update never modifies.
 *
 * <p>Plan records mirror the JSON report: an absent string is empty, never null.
 */
@NullMarked
package dev.capstan.update.plan;

import org.jspecify.annotations.NullMarked;
