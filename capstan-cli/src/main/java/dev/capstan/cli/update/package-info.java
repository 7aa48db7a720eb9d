/**
 * The command-line layer of {@code capstan update}: options in, plan and result printed, every side
 * effect through a port. The platform-update library ({@code update-core}) below it knows no flags
 * and prints nothing.
 *
 * <p>{@link dev.capstan.cli.update.UpdateCommand#run} runs this flow: validate the {@link
 * dev.capstan.cli.update.UpdateOptions} (a target is required) → load and parse the manifest
 * through the {@link dev.capstan.cli.update.ManifestLoader} (the {@code --to} version must match
 * it) → read the inventory and plan → refuse a plan with blocked rows (even in dry-run) → stop
 * after printing in dry-run or when nothing changes → ask the {@link
 * dev.capstan.cli.update.Confirmer} (only the exact reply {@code yes} proceeds; with no terminal
 * and no {@code --yes} it refuses) → build images → apply. Output goes to a {@link
 * java.io.PrintStream} as text or JSON ({@code UpdateReport}); environment variables are read
 * through {@link dev.capstan.cli.update.Environment}. {@code dev.capstan.cli.UpdateCli} parses the
 * flags into {@code UpdateOptions} and maps the {@link dev.capstan.update.UpdateException}
 * subclasses to exit codes.
 *
 * <p>{@code UpdateReport} writes these layouts: the plan's header lines ({@code Kube context:},
 * {@code API server:}, {@code Cluster ID:}, {@code Manifest:}, {@code Version: <installed|-> ->
 * <target>}, {@code CRDs:}), the {@code COMPONENT WORKLOAD ACTION CURRENT TARGET REASON} table with
 * {@code note:} lines, then the image builds, CRDs, warnings and the preserved list; the result's
 * CRD and {@code WORKLOAD COMPONENTS STATUS DETAIL} tables and, after a failure, the manual
 * recovery commands. JSON is one indented object {@code {"dryRun", "plan", "result"}} with the
 * field names of {@link dev.capstan.update.plan.UpdatePlan}; empty optional fields are left out.
 */
@NullMarked
package dev.capstan.cli.update;

import org.jspecify.annotations.NullMarked;
