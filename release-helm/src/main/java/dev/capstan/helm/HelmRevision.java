package dev.capstan.helm;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One decoded Helm revision: what {@code helm history} shows and the rendered manifest. The chart's
 * templates and values (which may hold secrets) are not kept.
 *
 * @param record the record it was decoded from
 * @param release the release name
 * @param namespace the release namespace
 * @param revision the revision number, from 1
 * @param status its status
 * @param chartName the chart's name
 * @param chartVersion the chart's version
 * @param appVersion the chart's app version, or {@code null}
 * @param description Helm's description, e.g. {@code Upgrade complete}; may be empty
 * @param firstDeployed when the release was first deployed, or {@code null}
 * @param lastDeployed when this revision was deployed, or {@code null}
 * @param manifest the rendered objects of the revision (YAML documents), never printed
 * @param hooks the revision's hooks
 */
public record HelmRevision(
    HelmRecord record,
    String release,
    String namespace,
    int revision,
    HelmStatus status,
    String chartName,
    String chartVersion,
    @Nullable String appVersion,
    String description,
    @Nullable Instant firstDeployed,
    @Nullable Instant lastDeployed,
    String manifest,
    List<HelmHook> hooks) {

  /** Requires every part; copies the hooks. */
  public HelmRevision {
    requireNonNull(record, "record");
    requireNonNull(release, "release");
    requireNonNull(namespace, "namespace");
    requireNonNull(status, "status");
    requireNonNull(chartName, "chartName");
    requireNonNull(chartVersion, "chartVersion");
    requireNonNull(description, "description");
    requireNonNull(manifest, "manifest");
    hooks = List.copyOf(hooks);
  }

  /** The chart as Helm shows it: {@code shop-0.2.0}. */
  public String chart() {
    return chartName + "-" + chartVersion;
  }

  /** Names the revision only: its manifest may hold Secret values. */
  @Override
  public String toString() {
    return "HelmRevision["
        + namespace
        + "/"
        + release
        + " revision "
        + revision
        + " "
        + status
        + "]";
  }
}
