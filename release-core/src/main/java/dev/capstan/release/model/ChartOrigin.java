package dev.capstan.release.model;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.common.Trees;
import dev.capstan.release.internal.Copies;
import dev.capstan.release.internal.Names;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The Helm chart a revision's objects were rendered from, as the revision records it: which chart
 * (where from, its name, version and digest), the values the caller gave it, and what rendered it.
 * A rollback casts the objects a revision recorded, never a new rendering, so these are for people
 * ({@code capstan release get NAME --values}) and for the next cast to compare with.
 *
 * <p>Values that are secret are never recorded: each is replaced by {@link #MASKED} and its path
 * listed in {@code maskedValues}, as the values of a Secret never show in a plan. Which values are
 * secret is decided where the chart is rendered (release-file's {@code ChartReleases}).
 *
 * @param reference the chart as the caller named it: a directory, a {@code .tgz}, {@code
 *     oci://host/path/name}, or a chart repository's URL and the chart's name ({@code
 *     https://charts.example.com shop})
 * @param name the chart's name ({@code Chart.yaml})
 * @param version the chart's version ({@code Chart.yaml}), the one a version range resolved to
 * @param appVersion the chart's {@code appVersion}, or {@code null}
 * @param digest {@code sha256:} and 64 hex digits: of the chart archive as fetched (for an OCI
 *     chart, its layer digest), or of a directory's files
 * @param values the values the caller gave, merged as the renderer merged them, secret ones {@link
 *     #MASKED}; no null field
 * @param maskedValues the paths of the masked values ({@code auth.password}, {@code
 *     users[0].token}), sorted
 * @param renderer what rendered it, e.g. {@code helm v3.22.0}
 */
public record ChartOrigin(
    String reference,
    String name,
    String version,
    @Nullable String appVersion,
    String digest,
    Map<String, Object> values,
    List<String> maskedValues,
    String renderer) {

  /** What a secret value is recorded as. */
  public static final String MASKED = "(masked)";

  private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");

  /** Requires every part; copies the values deeply, without null fields, whole numbers as longs. */
  public ChartOrigin {
    Names.requireText(reference, "chart.reference");
    Names.requireText(name, "chart.name");
    Names.requireText(version, "chart.version");
    Names.requireText(renderer, "chart.renderer");
    requireNonNull(digest, "chart.digest");
    if (!DIGEST.matcher(digest).matches()) {
      throw new IllegalArgumentException(
          "chart.digest must be sha256: and 64 lower-case hex digits: " + Escapes.quote(digest));
    }
    values = Trees.copyObject(Trees.freezeMap(requireNonNull(values, "chart.values")), "values");
    maskedValues = List.copyOf(new TreeSet<>(Copies.list(maskedValues, "chart.maskedValues")));
  }

  /** {@code name version}, e.g. {@code shop 1.2.0}. */
  public String describe() {
    return name + " " + version;
  }

  /** The chart in one line, without its values. */
  @Override
  public String toString() {
    return "ChartOrigin["
        + Escapes.escape(reference)
        + " "
        + Escapes.escape(describe())
        + " "
        + digest
        + ", "
        + maskedValues.size()
        + " masked value(s)]";
  }
}
