package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.SETTINGS;
import static dev.capstan.release.Fixtures.WEB;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlannedChange;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * After a failed revision, the plan says the truth about objects the attempt did not leave as it
 * wanted: an update that finishes the failed revision, not drift from an older one.
 */
class FailedRevisionReasonsTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static List<String> lines(Plan plan) {
    return plan.changes().stream().map(FailedRevisionReasonsTest::line).toList();
  }

  private static String line(PlannedChange c) {
    return c.action().id()
        + " "
        + c.ref().key()
        + (c.reason() == null ? "" : " (" + c.reason() + ")");
  }

  @Test
  void anObjectStillAtTheLastDeployedRevisionIsAnUpdateThatFinishesTheFailedOne() {
    h.cast("app", payloads(configMap("settings", "v1"), web("web:1"), creds("pw")));
    Payloads v2 = payloads(configMap("settings", "v2"), web("web:2"), creds("pw"));
    h.cluster.faults().failOn(Operation.APPLY, WEB.key());
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(CastFailedException.class);
    h.cluster.faults().clear();

    assertThat(lines(h.controller.plan(spec("app", v2))))
        .containsExactly(
            "reference Namespace//default",
            "unchanged " + SETTINGS.key(),
            "unchanged " + CREDS.key(),
            "update "
                + WEB.key()
                + " (finishes failed revision 2: the live object still holds what revision 1"
                + " applied)",
            "unchanged Service/default/web");
  }

  @Test
  void anObjectTheFailedRevisionWroteAndThatWasPutBackIsAnUpdateNotDrift() {
    h.cast("app", payloads(configMap("settings", "v1"), web("web:1"), creds("pw")));
    h.cluster.neverReady("web:2", "ImagePullBackOff");
    Payloads v2 = payloads(configMap("settings", "v2"), web("web:2"), creds("pw"));
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(CastFailedException.class);
    // put back by hand to what revision 1 applied; the stamp still names revision 2
    h.cluster.edit(SETTINGS, m -> m.with("data.value", "v1"));

    assertThat(lines(h.controller.plan(spec("app", v2))))
        .contains(
            "update "
                + SETTINGS.key()
                + " (finishes failed revision 2: the live object no longer holds what it applied"
                + " (field data.value set by edit))");
  }

  @Test
  void anObjectTheFailedRevisionDidNotTouchAndThatWasEditedIsStillDrift() {
    h.cast("app", payloads(configMap("settings", "v1"), web("web:1"), creds("pw")));
    h.cluster.neverReady("web:2", "ImagePullBackOff");
    Payloads v2 = payloads(configMap("settings", "v1"), web("web:2"), creds("pw"));
    assertThatThrownBy(() -> h.cast("app", v2)).isInstanceOf(CastFailedException.class);
    h.cluster.edit(SETTINGS, m -> m.with("data.value", "edited by hand"));

    assertThat(lines(h.controller.plan(spec("app", v2))))
        .contains("repair " + SETTINGS.key() + " (drift: field data.value set by edit)");
  }
}
