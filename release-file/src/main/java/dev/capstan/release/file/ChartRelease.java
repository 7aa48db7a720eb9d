package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.chart.ChartException;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.ReleaseInput;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A rendered chart as a release: what to cast, and what the chart holds beside its objects.
 *
 * @param input the release to cast: the chart's objects (its {@code crds/} among them, cast first
 *     by rank and through the CRD gate), with a spec that records the chart ({@link
 *     dev.capstan.release.model.ReleaseSpec#chart()})
 * @param hooks the hooks an install, upgrade, rollback or uninstall would run, weight order
 * @param tests the test hooks ({@code helm test}'s), which no cast runs
 * @param skipped the objects whose hook annotation names no event Helm knows ({@code crd-install},
 *     a Helm 2 event): Helm skips them, and so does Capstan; one line each
 * @param warnings what the renderer said the caller should know, one line each
 */
public record ChartRelease(
    ReleaseInput input,
    List<ChartHook> hooks,
    List<ChartHook> tests,
    List<String> skipped,
    List<String> warnings) {

  /** Requires the input; copies the lists. */
  public ChartRelease {
    requireNonNull(input, "input");
    hooks = List.copyOf(hooks);
    tests = List.copyOf(tests);
    skipped = List.copyOf(skipped);
    warnings = List.copyOf(warnings);
  }

  /** The chart its spec records. */
  public ChartOrigin chart() {
    return requireNonNull(input.spec().chart(), "chart");
  }

  /**
   * Refuses a chart whose hooks a cast would have to run, until Capstan runs hooks: names each hook
   * and how to cast the chart without them.
   *
   * @return this, when the chart has no hook other than tests
   * @throws ChartException naming the hooks
   */
  public ChartRelease requireNoHooks() {
    if (hooks.isEmpty()) {
      return this;
    }
    throw new ChartException(
        "chart "
            + ChartReleases.describe(chart())
            + " has hooks, which Capstan does not run yet: "
            + hooks.stream().map(ChartHook::describe).collect(Collectors.joining(", "))
            + "; cast it with --no-hooks to cast its other objects without them (as helm install"
            + " --no-hooks does); nothing was written");
  }
}
