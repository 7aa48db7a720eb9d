package dev.capstan.update;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The library's messages name its own terms; a caller that has flags passes its words. */
class ExceptionMessagesTest {

  @Test
  void theStandardMessagesNameNoFlag() {
    assertThat(new TargetRequiredException().getMessage())
        .isEqualTo(
            "update target required: name a target version or a release manifest; update never"
                + " picks a release implicitly");
    assertThat(new ConfirmationMissingException().getMessage())
        .isEqualTo(
            "confirmation required but stdin is not a terminal; review the plan and confirm the"
                + " update in advance to apply it");
    assertThat(new TargetMismatchException("v0.6.0", "v0.5.0", "m.yaml").getMessage())
        .isEqualTo(
            "target version v0.6.0 does not match release manifest m.yaml version v0.5.0;"
                + " refusing to change the target silently");
  }

  @Test
  void aCallerNamesTheRequestedVersionInItsOwnWords() {
    TargetMismatchException e = new TargetMismatchException("v0.6.0", "v0.5.0", "m.yaml", "--to");

    assertThat(e.getMessage())
        .isEqualTo(
            "--to v0.6.0 does not match release manifest m.yaml version v0.5.0; refusing to change"
                + " the target silently");
    assertThat(e.requested()).isEqualTo("v0.6.0");
    assertThat(e.manifestVersion()).isEqualTo("v0.5.0");
  }
}
