package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatusReportTest {
  @Test
  void aMessageLongerThanAConditionsIsCutToItSayingHowLongItWas() {
    String problems = "document #1: spec.replicas: must be an integer\n".repeat(1000);

    StatusReport report = StatusReport.stalled("InvalidManifests", problems);

    String suffix = " ... (47998 characters in all, cut)";
    assertThat(report.message()).hasSize(StatusReport.MAX_MESSAGE).endsWith(suffix);
    assertThat(report.message())
        .startsWith("document #1: spec.replicas: must be an integer; document #1: ");
    assertThat(StatusReport.oneLine(problems)).startsWith(report.message().replace(suffix, ""));
  }

  @Test
  void aMessageWithinTheLimitIsKeptWholeAndACutNeverSplitsACharacter() {
    String whole = "x".repeat(StatusReport.MAX_MESSAGE);
    assertThat(StatusReport.stalled("Failed", whole).message()).isEqualTo(whole);

    int length = StatusReport.MAX_MESSAGE + 3;
    String more = " ... (" + length + " characters in all, cut)";
    int end = StatusReport.MAX_MESSAGE - more.length(); // where the cut falls
    String message = "a".repeat(end - 1) + "\uD83D\uDE00" + "b".repeat(length - end - 1);
    assertThat(message).hasSize(length);
    assertThat(StatusReport.cut(message)).isEqualTo("a".repeat(end - 1) + more);
  }
}
