package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Hook;
import dev.capstan.release.model.ReleaseInput;
import java.util.List;

/**
 * A rendered chart as a release: what to cast, and what the chart holds beside its objects.
 *
 * @param input the release to cast: the chart's objects (its {@code crds/} among them, cast first
 *     by rank and through the CRD gate) and its hooks, which the cast runs as any release's hooks
 *     ({@link dev.capstan.release.model.Payloads#hooks()}), with a spec that records the chart
 *     ({@link dev.capstan.release.model.ReleaseSpec#chart()})
 * @param hooks the hooks an install, upgrade, rollback or uninstall runs, in run order ({@link
 *     Hook#ORDER})
 * @param tests the test hooks ({@code helm test}'s, {@link Hook#isTest()}), which {@code release
 *     test} runs and no cast
 * @param skipped the objects whose hook annotation names no event Helm knows ({@code crd-install},
 *     a Helm 2 event): Helm skips them, and so does Capstan; one line each
 * @param warnings what the renderer said the caller should know, one line each
 */
public record ChartRelease(
    ReleaseInput input,
    List<Hook> hooks,
    List<Hook> tests,
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
   * The release to cast without the chart's hooks, tests included, as {@code helm install
   * --no-hooks} casts it: the objects alone, no hook run or recorded.
   */
  public ReleaseInput inputWithoutHooks() {
    if (input.payloads().hooks().isEmpty()) {
      return input;
    }
    dev.capstan.release.model.Payloads objects =
        dev.capstan.release.model.Payloads.of(input.payloads().objects());
    return new ReleaseInput(input.spec(), objects);
  }
}
