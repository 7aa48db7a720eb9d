/**
 * The pure 3-way planner and its values. {@link dev.capstan.release.plan.Planner#plan} compares the
 * desired {@link dev.capstan.release.model.ReleaseSpec}, the latest recorded {@link
 * dev.capstan.release.model.Release} and a {@link dev.capstan.release.plan.LiveState} snapshot and
 * returns a {@link dev.capstan.release.plan.Plan}; {@link dev.capstan.release.plan.PlanRenderer}
 * shows it as text or JSON.
 */
@NullMarked
package dev.capstan.release.plan;

import org.jspecify.annotations.NullMarked;
