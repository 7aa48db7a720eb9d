package dev.capstan.update.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RowReasonTest {

  @Test
  void aReasonCarriesTheValuesItsCodeNamesAndSaysWhatWasFoundWithoutAFlag() {
    RowReason downgrade = RowReason.of(RowReason.Code.DOWNGRADE, "v0.6.0", "v0.5.0");

    assertThat(downgrade.value("from")).isEqualTo("v0.6.0");
    assertThat(downgrade.value("to")).isEqualTo("v0.5.0");
    assertThat(downgrade.text()).isEqualTo("downgrade v0.6.0 -> v0.5.0");
    assertThat(RowReason.of(RowReason.Code.OPT_IN, "auth").text()).isEqualTo("opt-in group auth");
    assertThat(RowReason.of(RowReason.Code.NOT_SELECTED).text()).isEqualTo("not selected");
    assertThat(RowReason.NONE.text()).isEmpty();
    assertThat(
            RowReason.of(RowReason.Code.NOT_A_PATCH_UPDATE, "ingress", "v1.9.0", "v1.10.0", "")
                .text())
        .isEqualTo("ingress v1.9.0 -> v1.10.0 is not a patch update");
  }

  @Test
  void theValuesMustBeThoseOfTheCode() {
    assertThatThrownBy(() -> RowReason.of(RowReason.Code.DOWNGRADE, "v0.6.0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("reason DOWNGRADE takes values [from, to], got [v0.6.0]");
    assertThatThrownBy(() -> RowReason.of(RowReason.Code.OPT_IN, "auth").value("from"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("reason OPT_IN has values [group], not from");
  }
}
