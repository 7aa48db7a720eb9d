/**
 * Helm charts as a release source: the port that renders a chart ({@link
 * dev.capstan.release.chart.ChartRenderer}), what it is asked ({@link
 * dev.capstan.release.chart.ChartRequest}: which chart, the release, the values, the target
 * cluster's capabilities, the caller's own access to it and to the chart's repository) and what it
 * answers ({@link dev.capstan.release.chart.RenderedChart}: the manifests as text, the chart's
 * name, version and digest, the values it merged). The core renders nothing itself and reads no
 * file: the adapter that runs Helm is release-helm's {@code HelmChartRenderer}; {@link
 * dev.capstan.release.chart.InMemoryCharts} renders charts written in Java, for tests. The text
 * becomes a release through the manifest reader every manifest goes through (release-file's {@code
 * ChartReleases}). See ARCHITECTURE.md, "Charts".
 */
@NullMarked
package dev.capstan.release.chart;

import org.jspecify.annotations.NullMarked;
