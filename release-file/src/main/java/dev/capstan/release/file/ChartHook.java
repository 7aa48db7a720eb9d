package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import dev.capstan.release.model.Manifest;
import java.util.List;

/**
 * An object of a rendered chart that Helm runs as a hook rather than installs: it carries the
 * annotation {@value ChartReleases#HOOK} (events such as {@code pre-install,pre-upgrade}), with an
 * order within its event ({@value ChartReleases#HOOK_WEIGHT}, default 0) and what to delete when
 * ({@value ChartReleases#HOOK_DELETE_POLICY}). A chart's hooks are kept apart from its objects:
 * they are never owned, pruned or cast as the release's objects (ARCHITECTURE.md, "Charts").
 *
 * @param object the hook's object, read strictly like every rendered object
 * @param events its events, lower-case, in the order the annotation gives them
 * @param weight its weight: hooks of one event run lightest first
 * @param deletePolicies its delete policies ({@code before-hook-creation}, {@code hook-succeeded},
 *     {@code hook-failed}), as given
 */
public record ChartHook(
    Manifest object, List<String> events, int weight, List<String> deletePolicies) {
  /** Requires the object; copies the lists. */
  public ChartHook {
    requireNonNull(object, "object");
    events = List.copyOf(events);
    deletePolicies = List.copyOf(deletePolicies);
  }

  /** Whether it is a test ({@code helm test}'s), which no install or upgrade runs. */
  public boolean isTest() {
    return events.stream().allMatch(e -> e.equals("test") || e.equals("test-success"));
  }

  /** {@code KEY (event, event)}, e.g. {@code batch/Job/shop/migrate (pre-upgrade)}. */
  public String describe() {
    return object.ref().key() + " (" + String.join(", ", events) + ")";
  }
}
