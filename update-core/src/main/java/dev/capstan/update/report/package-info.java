/**
 * Plans and results rendered for people (aligned text tables) and for programs (JSON).
 *
 * <p>{@link dev.capstan.update.report.UpdateReport} writes these layouts: the plan's header lines
 * ({@code Kube context:}, {@code API server:}, {@code Cluster ID:}, {@code Manifest:}, {@code
 * Version: <installed|-> -> <target>}, {@code CRDs:}), the {@code COMPONENT WORKLOAD ACTION CURRENT
 * TARGET REASON} table with {@code note:} lines, then the image builds, CRDs, warnings and the
 * preserved list; the result's CRD and {@code WORKLOAD COMPONENTS STATUS DETAIL} tables and, after
 * a failure, the manual recovery commands. JSON is one indented object {@code {"dryRun", "plan",
 * "result"}} with the field names of {@link dev.capstan.update.plan.UpdatePlan}; empty optional
 * fields are left out.
 */
@NullMarked
package dev.capstan.update.report;

import org.jspecify.annotations.NullMarked;
