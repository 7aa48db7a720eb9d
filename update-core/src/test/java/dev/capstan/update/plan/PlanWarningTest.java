package dev.capstan.update.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PlanWarningTest {

  @Test
  void aWarningNamesTheSelectionsOptionsNotAFlag() {
    assertThat(PlanWarning.of(PlanWarning.Code.CRDS_SKIPPED_BY_ONLY, "v0.5.0").text())
        .isEqualTo(
            "release v0.5.0 changes CustomResourceDefinitions but Selection.only is set, so CRD"
                + " apply is skipped; plan without Selection.only to apply them");
    assertThat(
            PlanWarning.of(PlanWarning.Code.UNSAFE_CRD_CHANGE_APPLIED, "w.example.org", "found")
                .text())
        .isEqualTo(
            "CRD w.example.org: unsafe change applied because Selection.allowUnsafeCrdChanges is"
                + " set: found");
    assertThat(PlanWarning.of(PlanWarning.Code.COMPONENT_NOTE, "ui", "pods restart").text())
        .isEqualTo("ui: pods restart");
  }

  @Test
  void theValuesMustBeThoseOfTheCode() {
    assertThatThrownBy(() -> PlanWarning.of(PlanWarning.Code.CRDS_MATCH, "v0.5.0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("warning CRDS_MATCH takes values [], got [v0.5.0]");
    assertThatThrownBy(() -> PlanWarning.of(PlanWarning.Code.COMPONENT_NOTE, "ui", "n").value("x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("warning COMPONENT_NOTE has values [component, note], not x");
  }
}
