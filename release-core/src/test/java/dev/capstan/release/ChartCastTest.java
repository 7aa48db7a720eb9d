package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.model.ChartOrigin;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastOutcome;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A spec rendered from a chart ({@link ReleaseSpec#chart()}) records its chart with each revision
 * it casts; a rollback casts the objects a revision recorded and records that revision's chart.
 */
class ChartCastTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static ChartOrigin chart(String version, String password) {
    return new ChartOrigin(
        "oci://registry.example/charts/shop",
        "shop",
        version,
        "2.1",
        "sha256:" + (version.equals("1.0.0") ? "0a" : "0b").repeat(32),
        Map.of("replicas", 2, "auth", Map.of("password", password)),
        password.equals(ChartOrigin.MASKED) ? List.of("auth.password") : List.of(),
        "helm v3.22.0");
  }

  private static ReleaseInput input(String value, @Nullable ChartOrigin chart) {
    Payloads payloads = payloads(configMap("settings", value));
    return new ReleaseInput(ReleaseSpec.of(NS, "shop", payloads).withChart(chart), payloads);
  }

  private void cast(ReleaseInput input) {
    h.controller.cast(input);
  }

  private Release latest() {
    return h.controller.get(NS, "shop").orElseThrow();
  }

  @Test
  void eachRevisionRecordsTheChartItWasRenderedFrom() {
    cast(input("a", chart("1.0.0", ChartOrigin.MASKED)));
    cast(input("b", chart("1.1.0", ChartOrigin.MASKED)));

    assertThat(h.controller.history(NS, "shop"))
        .extracting(r -> r.revision() + " " + (r.chart() == null ? "-" : r.chart().describe()))
        .containsExactly("2 shop 1.1.0", "1 shop 1.0.0");
    assertThat(latest().chart()).isEqualTo(chart("1.1.0", ChartOrigin.MASKED));
  }

  @Test
  void aRollbackCastsTheRecordedObjectsAndRecordsTheChartOfTheRevisionItReturnsTo() {
    cast(input("a", chart("1.0.0", ChartOrigin.MASKED)));
    cast(input("b", chart("1.1.0", ChartOrigin.MASKED)));
    h.cluster.clearOperations();

    h.controller.rollback(NS, "shop", 1);

    assertThat(h.cluster.writes()).containsExactly("apply:ConfigMap/default/settings", "verify");
    assertThat(h.cluster.object(Fixtures.SETTINGS).orElseThrow().get("data.value")).isEqualTo("a");
    assertThat(latest().revision()).isEqualTo(3);
    assertThat(latest().chart()).isEqualTo(chart("1.0.0", ChartOrigin.MASKED));
  }

  @Test
  void aReviewedPlanRecordsItsChartAndAPlanFileKeepsIt() {
    ReleaseInput input = input("a", chart("1.0.0", ChartOrigin.MASKED));
    Plan plan = h.controller.plan(input);

    Plan saved = PlanCodec.decode(PlanCodec.encode(plan));
    h.controller.cast(saved, input.payloads());

    assertThat(java.util.Objects.requireNonNull(saved.fingerprint()).spec().chart())
        .isEqualTo(chart("1.0.0", ChartOrigin.MASKED));
    assertThat(latest().chart()).isEqualTo(chart("1.0.0", ChartOrigin.MASKED));
  }

  @Test
  void castAllCastsAReleaseWhoseChartChangedThoughItsObjectsDidNot() {
    cast(input("a", chart("1.0.0", ChartOrigin.MASKED)));
    h.cluster.clearOperations();

    List<CastOutcome> same =
        h.controller.castAll(List.of(input("a", chart("1.0.0", ChartOrigin.MASKED))), 1);
    List<CastOutcome> newer =
        h.controller.castAll(List.of(input("a", chart("1.1.0", ChartOrigin.MASKED))), 1);

    assertThat(same).singleElement().isInstanceOf(CastOutcome.Unchanged.class);
    assertThat(newer).singleElement().isInstanceOf(CastOutcome.Cast.class);
    assertThat(h.cluster.writes()).containsExactly("verify"); // the new revision, no object
    assertThat(latest().revision()).isEqualTo(2);
    assertThat(latest().chart()).isEqualTo(chart("1.1.0", ChartOrigin.MASKED));
  }

  @Test
  void aReleaseCastWithoutAChartRecordsNone() {
    cast(input("a", null));

    assertThat(latest().chart()).isNull();
  }
}
