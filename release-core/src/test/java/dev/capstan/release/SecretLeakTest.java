package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SECRET_VALUE;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.logging.LogCapture;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Secret values appear in no plan text, JSON, toString, event, exception message or log line (all
 * levels).
 */
class SecretLeakTest {
  private final Fixtures.Harness h = new Fixtures.Harness();
  private final List<String> seen = new ArrayList<>();

  private void see(@org.jspecify.annotations.Nullable Object o) {
    seen.add(String.valueOf(o));
  }

  private void seeException(Throwable t) {
    for (Throwable e = t; e != null; e = e.getCause()) {
      see(e.getMessage());
      see(e);
      for (Throwable s : e.getSuppressed()) {
        see(s.getMessage());
      }
    }
  }

  private void seePlan(Plan plan) {
    see(plan);
    see(PlanRenderer.text(plan, true));
    see(PlanRenderer.json(plan));
  }

  @Test
  void noSecretValueEscapesThroughAnyOutput() {
    try (LogCapture logs = LogCapture.open()) {
      everyOutput();
      assertThat(logs.lines()).anyMatch(l -> l.message().contains("Secret/default/creds"));
      logs.lines().forEach(l -> see(l.text()));
    }
    String everything = String.join("\n", seen);
    assertThat(everything).contains("Secret/default/creds");
    for (String value : List.of(SECRET_VALUE, SECRET_VALUE + "-2", SECRET_VALUE + "-new")) {
      assertThat(everything)
          .doesNotContain(value)
          .doesNotContain(
              Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)));
    }
  }

  private void everyOutput() {
    SecretSpec secret = creds(SECRET_VALUE).with("second", SECRET_VALUE + "-2");
    Payloads p = payloads(web("web:1"), secret);
    see(secret);
    see(p);
    see(secret.data());

    CastResult first = h.cast("app", p);
    see(first);
    seePlan(first.plan());

    // drift on the secret, shown and repaired
    h.cluster.edit(
        CREDS,
        m ->
            m.with(
                "data.password",
                java.util.Base64.getEncoder()
                    .encodeToString(
                        ("tampered-" + SECRET_VALUE)
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    seePlan(h.controller.plan(spec("app", p)));
    see(h.cast("app", p));

    // a changed secret, failing verify, reverted atomically
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    Payloads changed = payloads(web("web:bad"), creds(SECRET_VALUE + "-new"));
    try {
      h.controller.cast(spec("app", changed).withAtomic(true), changed);
    } catch (CastFailedException e) {
      seeException(e);
      see(e.result());
    }

    // a failing apply of the secret itself
    h.cluster.faults().failOn(Operation.APPLY, "Secret/default/creds");
    try {
      h.cast("app", changed);
    } catch (CastFailedException e) {
      seeException(e);
    }
    h.cluster.faults().clear();

    // a conflict on an unmanaged secret, and a payload mismatch
    h.cluster.put(SecretSpec.of(NS, "foreign", java.util.Map.of("k", SECRET_VALUE)));
    Payloads conflicting =
        payloads(SecretSpec.of(NS, "foreign", java.util.Map.of("k", SECRET_VALUE)));
    try {
      h.cast("other", conflicting);
    } catch (ReleaseConflictException e) {
      seeException(e);
      seePlan(e.plan());
    }
    try {
      h.controller.cast(spec("app", p), changed);
    } catch (InvalidReleaseException e) {
      seeException(e);
    }

    h.controller.history(NS, "app").forEach(this::see);
    h.events.forEach(
        e -> {
          see(e);
          see(e.describe());
        });
    see(h.cluster.operations());

    assertThat(h.events).anyMatch(ReleaseEvent.Failed.class::isInstance);
  }
}
