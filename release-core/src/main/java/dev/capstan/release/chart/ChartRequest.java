package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import org.jspecify.annotations.Nullable;

/**
 * What to render: which chart, for which release, with which values, for which cluster.
 *
 * @param chart where the chart comes from
 * @param version the version of a repository or OCI chart: exact ({@code 1.2.0}) or a range as Helm
 *     reads one ({@code ^1.2}, {@code ~1.2.0}, {@code >=1.0 <2.0}); {@code null}: the newest that
 *     is no pre-release. A directory or archive has its own and takes none.
 * @param namespace the release's namespace ({@code .Release.Namespace}, and the namespace of the
 *     objects that name none)
 * @param release the release's name ({@code .Release.Name})
 * @param values the caller's values
 * @param capabilities the target cluster's version and API versions, or {@code null} for the
 *     renderer's defaults (Helm's built-in ones)
 * @param cluster the caller's access to the target cluster, through which {@code lookup} reads it,
 *     or {@code null}: lookups find nothing
 * @param repository credentials and TLS for a repository or registry chart
 * @param upgrade whether the release exists already: {@code .Release.IsUpgrade} instead of {@code
 *     .Release.IsInstall}
 */
public record ChartRequest(
    ChartReference chart,
    @Nullable String version,
    String namespace,
    String release,
    ChartValues values,
    @Nullable Capabilities capabilities,
    @Nullable ClusterAccess cluster,
    RepositoryAccess repository,
    boolean upgrade) {

  /** Requires the chart, the release and the values; a local chart takes no version. */
  public ChartRequest {
    requireNonNull(chart, "chart");
    requireNonNull(namespace, "namespace");
    requireNonNull(release, "release");
    requireNonNull(values, "values");
    requireNonNull(repository, "repository");
    if (version != null && version.isBlank()) {
      version = null;
    }
    if (version != null
        && (chart instanceof ChartReference.Directory || chart instanceof ChartReference.Archive)) {
      throw new IllegalArgumentException(
          "--chart-version "
              + Escapes.quote(version)
              + ": a chart directory or .tgz has its own version (Chart.yaml); --chart-version"
              + " picks one from a chart repository or an OCI registry");
    }
  }

  /**
   * A request for {@code chart}, rendered for the release {@code namespace/release} with the
   * chart's default values, Helm's default capabilities, no cluster access and no credentials.
   */
  public static ChartRequest of(ChartReference chart, String namespace, String release) {
    return new ChartRequest(
        chart,
        null,
        namespace,
        release,
        ChartValues.none(),
        null,
        null,
        RepositoryAccess.anonymous(),
        false);
  }

  /** A copy asking for {@code version} (exact or a range). */
  public ChartRequest withVersion(@Nullable String version) {
    return new ChartRequest(
        chart, version, namespace, release, values, capabilities, cluster, repository, upgrade);
  }

  /** A copy with the given values. */
  public ChartRequest withValues(ChartValues values) {
    return new ChartRequest(
        chart, version, namespace, release, values, capabilities, cluster, repository, upgrade);
  }

  /** A copy rendering for the given capabilities. */
  public ChartRequest withCapabilities(@Nullable Capabilities capabilities) {
    return new ChartRequest(
        chart, version, namespace, release, values, capabilities, cluster, repository, upgrade);
  }

  /** A copy whose lookups read the cluster through {@code cluster}. */
  public ChartRequest withCluster(@Nullable ClusterAccess cluster) {
    return new ChartRequest(
        chart, version, namespace, release, values, capabilities, cluster, repository, upgrade);
  }

  /** A copy reaching the chart's repository with {@code repository}. */
  public ChartRequest withRepository(RepositoryAccess repository) {
    return new ChartRequest(
        chart, version, namespace, release, values, capabilities, cluster, repository, upgrade);
  }

  /** A copy rendering an upgrade ({@code true}) or an install. */
  public ChartRequest withUpgrade(boolean upgrade) {
    return new ChartRequest(
        chart, version, namespace, release, values, capabilities, cluster, repository, upgrade);
  }

  /** {@code namespace/release}. */
  public String qualifiedName() {
    return namespace + "/" + release;
  }
}
