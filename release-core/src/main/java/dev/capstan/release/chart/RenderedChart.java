package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Trees;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A rendered chart: its manifests as the renderer wrote them, and what was rendered.
 *
 * @param manifests the rendered objects, hooks and the chart's CRDs ({@code crds/}) among them, as
 *     YAML documents: not yet read (release-file's {@code ChartReleases} reads them strictly)
 * @param name the chart's name
 * @param version the chart's version (the one a range resolved to)
 * @param appVersion the chart's {@code appVersion}, or {@code null}
 * @param digest {@code sha256:} and 64 hex digits of the chart archive rendered (or of a
 *     directory's files)
 * @param values the caller's values as the renderer merged them (files, then the {@code --set}
 *     kinds), without the chart's defaults; may hold secrets
 * @param renderer what rendered it, e.g. {@code helm v3.22.0}
 * @param warnings what the caller should know about this rendering (one line each), e.g. that
 *     lookups could not see the cluster
 */
public record RenderedChart(
    String manifests,
    String name,
    String version,
    @Nullable String appVersion,
    String digest,
    Map<String, Object> values,
    String renderer,
    List<String> warnings) {
  private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

  /** Requires every part; copies the values deeply (no null field) and the warnings. */
  public RenderedChart {
    requireNonNull(manifests, "manifests");
    requireNonNull(name, "name");
    requireNonNull(version, "version");
    requireNonNull(digest, "digest");
    if (!DIGEST.matcher(digest).matches()) {
      throw new IllegalArgumentException("digest must be sha256: and 64 hex digits");
    }
    values = Trees.copyObject(Trees.freezeMap(requireNonNull(values, "values")), "values");
    requireNonNull(renderer, "renderer");
    warnings = List.copyOf(warnings);
  }

  /** The chart, never its manifests or values. */
  @Override
  public String toString() {
    return "RenderedChart[" + name + " " + version + " " + digest + "]";
  }
}
