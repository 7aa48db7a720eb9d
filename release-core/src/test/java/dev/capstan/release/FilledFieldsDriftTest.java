package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import dev.capstan.release.result.CastResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Drift in memory is told by what was applied, as on Kubernetes: what another writer fills in where
 * the release applied nothing, or an empty map, is not drift and is never written again; a value
 * the release applied that another writer changed is.
 */
class FilledFieldsDriftTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final Manifest TLS =
      yaml("{apiVersion: v1, kind: Secret, metadata: {name: webhook-tls}, type: Opaque, data: {}}");
  private static final Manifest CA =
      yaml("{apiVersion: v1, kind: Secret, metadata: {name: webhook-ca}, type: Opaque}");
  private static final Manifest SETTINGS =
      yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}, data: {color: blue}}");
  private static final Payloads PAYLOADS = Payloads.of(TLS, CA, SETTINGS);

  private static ResourceRef ref(Manifest m) {
    return m.ref();
  }

  private List<Action> actions(Plan plan) {
    return plan.changes().stream()
        .filter(c -> c.action() != Action.REFERENCE)
        .map(PlannedChange::action)
        .toList();
  }

  @Test
  void aControllerFillingWhatTheReleaseLeftEmptyIsNoDriftAndTheReCastWritesNothing() {
    h.cast("app", PAYLOADS);
    h.cluster.edit(
        ref(TLS),
        m -> m.withEntry("data", "tls.crt", "Q0VSVA==").withEntry("data", "tls.key", "S0VZ"));
    h.cluster.edit(ref(CA), m -> m.with("data", java.util.Map.of("ca.crt", "Q0E=")));
    h.cluster.edit(ref(SETTINGS), m -> m.withEntry("data", "mode", "extra"));
    h.cluster.clearOperations();

    Plan plan = h.controller.plan(spec("app", PAYLOADS), PAYLOADS);
    assertThat(actions(plan)).containsOnly(Action.UNCHANGED);

    h.cast("app", PAYLOADS);
    assertThat(h.cluster.writes()).noneMatch(w -> w.startsWith("apply:"));
  }

  @Test
  void aValueTheReleaseAppliedThatAnotherWriterChangedIsDriftAndRepaired() {
    h.cast("app", PAYLOADS);
    h.cluster.edit(ref(SETTINGS), m -> m.withEntry("data", "color", "red"));

    CastResult r = h.cast("app", PAYLOADS);

    assertThat(r.plan().changes())
        .filteredOn(c -> c.action() == Action.REPAIR)
        .extracting(c -> c.ref().key() + ": " + c.reason())
        .containsExactly("ConfigMap/default/settings: drift: field data.color set by edit");
    assertThat(h.cluster.object(ref(SETTINGS)).orElseThrow().content().get("data"))
        .isEqualTo(java.util.Map.of("color", "blue"));
    assertThat(actions(h.controller.plan(spec("app", PAYLOADS), PAYLOADS)))
        .containsOnly(Action.UNCHANGED);
  }

  @Test
  void whatWasAppliedSurvivesTheStateExportSoAnImportedClusterTellsDriftAlike() {
    h.cast("app", PAYLOADS);
    h.cluster.edit(ref(TLS), m -> m.withEntry("data", "tls.crt", "Q0VSVA=="));
    h.cluster.edit(ref(SETTINGS), m -> m.withEntry("data", "color", "red"));

    var imported = dev.capstan.release.memory.InMemoryCluster.importState(h.cluster.exportState());
    var live = imported.observe(ref(TLS).kind(), NS, java.util.Set.of("webhook-tls"));
    var settings = imported.observe(ref(SETTINGS).kind(), NS, java.util.Set.of("settings"));

    assertThat(live).singleElement().satisfies(o -> assertThat(o.drift()).isNull());
    assertThat(settings)
        .singleElement()
        .satisfies(o -> assertThat(o.drift()).isEqualTo("field data.color set by edit"));
  }
}
