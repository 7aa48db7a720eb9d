/**
 * Helm charts rendered by the Helm binary: {@link dev.capstan.helm.chart.HelmChartRenderer}, the
 * adapter of release-core's {@code ChartRenderer} port. It fetches a chart from a directory, a
 * {@code .tgz}, a chart repository or an OCI registry, builds a directory's missing dependencies,
 * and renders it with {@code helm template} for the target cluster's capabilities, its {@code
 * lookup} reading the cluster with the caller's own credentials. Each run is sandboxed: a private
 * folder, an environment built from nothing, credentials in files, fetches through a proxy that
 * refuses a cloud's metadata service (and, for tenants, private addresses) and bounds what a chart
 * source may send, one deadline for all of a rendering's Helm processes, Helm's output watched as
 * it prints, and no values schema that would make Helm load a document. See ARCHITECTURE.md,
 * "Charts".
 */
@NullMarked
package dev.capstan.helm.chart;

import org.jspecify.annotations.NullMarked;
