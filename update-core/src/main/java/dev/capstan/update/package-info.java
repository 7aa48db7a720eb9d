/**
 * Capstan's platform update engine: moves an installed platform to a release by patching only the
 * images of the workloads whose versions changed.
 *
 * <p>The engine is a pipeline of pure steps over immutable values, with every side effect behind a
 * port:
 *
 * <ol>
 *   <li>{@link dev.capstan.update.manifest} reads the {@code PlatformRelease} manifest strictly;
 *   <li>{@link dev.capstan.update.catalog} holds the host's component catalog: which workload and
 *       container (or env var) each component's image lives in;
 *   <li>{@link dev.capstan.update.plan} diffs a cluster {@link dev.capstan.update.cluster inventory
 *       snapshot} with the manifest into an {@code UpdatePlan}, with no I/O;
 *   <li>{@link dev.capstan.update.build} decides which images to build or reuse and builds them;
 *   <li>{@link dev.capstan.update.apply} patches one workload at a time through the {@code
 *       PlatformCluster} port and rolls back on failure.
 * </ol>
 *
 * <p>The engine knows no command-line flags and prints nothing: its plans and results are values,
 * which a host words and renders; the {@code capstan update} command line does so in the {@code
 * capstan-cli} module.
 *
 * <p>This package holds what every step shares: the exception family rooted at {@link
 * dev.capstan.update.UpdateException} (callers catch the subclasses they care about separately) and
 * the typed progress events ({@link dev.capstan.update.event.UpdateEvent}) delivered to an {@link
 * dev.capstan.update.event.UpdateListener}.
 */
@NullMarked
package dev.capstan.update;

import org.jspecify.annotations.NullMarked;
