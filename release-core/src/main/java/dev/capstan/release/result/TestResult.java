package dev.capstan.release.result;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.HookOutcome;
import dev.capstan.release.model.Release;
import java.util.List;

/**
 * What {@code ReleaseController.test} did: the revision it tested (as recorded after it, with these
 * outcomes among its hooks) and how each test hook that ran ended. The hooks run one at a time in
 * run order and stop at the first that fails, as Helm's {@code helm test} does.
 *
 * @param release the tested revision, as recorded after the test
 * @param outcomes how each test hook that ran ended, in the order they ran
 * @param declared how many test hooks the revision declares
 */
public record TestResult(Release release, List<HookOutcome> outcomes, int declared) {
  /** Requires every part; copies the outcomes. */
  public TestResult {
    requireNonNull(release, "release");
    outcomes = List.copyOf(outcomes);
    if (declared < outcomes.size()) {
      throw new IllegalArgumentException(
          "declared must be at least the outcomes' count " + outcomes.size() + ": " + declared);
    }
  }

  /** Whether every declared test hook ran and succeeded (none declared: trivially). */
  public boolean passed() {
    return outcomes.size() == declared && outcomes.stream().allMatch(HookOutcome::succeeded);
  }
}
