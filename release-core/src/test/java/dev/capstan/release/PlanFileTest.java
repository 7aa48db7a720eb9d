package dev.capstan.release;

import static dev.capstan.release.Fixtures.SECRET_VALUE;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.codec.PlanFormatException;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The plan file: what it holds (never a secret value), and what reading it refuses. */
class PlanFileTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private Plan plan() {
    h.cast("app", payloads(configMap("settings", "v1"), creds("old-" + SECRET_VALUE)));
    return h.controller.plan(
        spec("app", payloads(configMap("settings", "v2"), creds(SECRET_VALUE))));
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void aPlanFileReadsBackAsTheSamePlanAndCastsIt() {
    Plan plan = plan();

    Plan read = PlanCodec.decode(PlanCodec.encode(plan));

    // all but the release's Secret-hash key, which stays in the process that planned
    PlanFingerprint fingerprint = java.util.Objects.requireNonNull(plan.fingerprint());
    assertThat(fingerprint.secretHashKey()).isNotNull();
    assertThat(read).isEqualTo(plan.withFingerprint(fingerprint.withSecretHashKey(null)));
    Payloads same = payloads(configMap("settings", "v2"), creds(SECRET_VALUE));
    assertThat(h.controller.cast(read, same).release().revision()).isEqualTo(2);
  }

  @Test
  void aPlanFileSavedBeforeWaitForLoadBalancerExistedWaitsForLoadBalancers() {
    Plan plan = plan();
    String file = text(PlanCodec.encode(plan));
    assertThat(file).containsPattern(",\\s*\"waitForLoadBalancer\" : true\\s*}");
    String older = file.replaceFirst(",\\s*\"waitForLoadBalancer\" : true", "");
    String notWaiting =
        text(
            PlanCodec.encode(
                plan.withOptions(
                    java.util.Objects.requireNonNull(plan.fingerprint())
                        .spec()
                        .options()
                        .withWaitForLoadBalancer(false))));

    assertThat(older).doesNotContain("waitForLoadBalancer");
    assertThat(fingerprintOptions(older).waitForLoadBalancer()).isTrue();
    assertThat(fingerprintOptions(notWaiting).waitForLoadBalancer()).isFalse();
  }

  private static dev.capstan.release.model.ReleaseOptions fingerprintOptions(String file) {
    Plan read = PlanCodec.decode(file.getBytes(StandardCharsets.UTF_8));
    return java.util.Objects.requireNonNull(read.fingerprint()).spec().options();
  }

  @Test
  void aPlanFileHoldsNoSecretValueInAnyEncoding() {
    String file = text(PlanCodec.encode(plan()));

    assertThat(file)
        .startsWith("{\n  \"capstanPlan\" : 1,\n  \"plan\" : {")
        .contains("\"recordVersion\"", "\"resourceVersion\"", "\"contentHash\" : \"sha256:")
        .doesNotContain(SECRET_VALUE)
        .doesNotContain(
            Base64.getEncoder().encodeToString(SECRET_VALUE.getBytes(StandardCharsets.UTF_8)))
        .doesNotContain("hunter2");
  }

  @Test
  void anotherFormatVersionIsRefusedByName() {
    String file =
        text(PlanCodec.encode(plan())).replace("\"capstanPlan\" : 1", "\"capstanPlan\" : 2");

    assertThatThrownBy(() -> PlanCodec.decode(file.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PlanFormatException.class)
        .hasMessage(
            "plan file capstanPlan must be 1: '2' (written by a different Capstan version; plan"
                + " again)");
  }

  @Test
  void garbageUnknownKeysAndTrailingContentAreRefused() {
    String file = text(PlanCodec.encode(plan()));

    assertThatThrownBy(
            () -> PlanCodec.decode("not json \u001b[31m".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PlanFormatException.class)
        .hasMessageStartingWith("not a plan file: ");
    assertThatThrownBy(() -> PlanCodec.decode("{\"plan\": {}}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PlanFormatException.class)
        .hasMessage(
            "not a plan file: no capstanPlan version (write one with 'capstan release plan"
                + " --out')");
    assertThatThrownBy(
            () ->
                PlanCodec.decode(
                    file.replace("\"capstanPlan\" : 1,", "\"capstanPlan\" : 1, \"extra\": true,")
                        .getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PlanFormatException.class)
        .hasMessage("plan file has an unknown key: 'extra'");
    assertThatThrownBy(
            () ->
                PlanCodec.decode(
                    file.replace(
                            "\"namespace\" : \"default\",",
                            "\"namespace\" : \"default\", \"x\": 1,")
                        .getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PlanFormatException.class)
        .hasMessageStartingWith("plan file is malformed: ");
    assertThatThrownBy(() -> PlanCodec.decode((file + "{}").getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(PlanFormatException.class)
        .hasMessageStartingWith("not a plan file: ");
    assertThatThrownBy(() -> PlanCodec.decode(new byte[PlanCodec.MAX_BYTES + 1]))
        .isInstanceOf(PlanFormatException.class)
        .hasMessage("plan file is 16777217 bytes, over the limit of 16 MiB");
  }
}
