package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.CastSupersededException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Plan;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Superseding a wait (ARCHITECTURE.md): a cast asked to give way stops at its health wait, writes
 * nothing more, records its revision {@code FAILED} as superseded and gives its lease up; the next
 * cast proceeds over it.
 */
class SupersededCastTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static Manifest configMap(String name, int wave, String value) {
    return yaml(
        "{apiVersion: v1, kind: ConfigMap, metadata: {name: "
            + name
            + ", annotations: {capstan.dev/wave: \""
            + wave
            + "\"}}, data: {k: "
            + value
            + "}}");
  }

  private ReleaseInput input(String value) {
    Payloads p = Payloads.of(configMap("a", 0, value), configMap("b", 1, value));
    return new ReleaseInput(ReleaseSpec.of(NS, "app", p), p);
  }

  @Test
  void aSupersededCastStopsAtItsWaitRecordsFailedAndTheNextCastGoesOn() {
    AtomicBoolean newer = new AtomicBoolean();
    // the newer revision is asked for while the first wave is being waited for
    ReleaseController releases =
        ReleaseController.builder(h.cluster, h.cluster)
            .holder("me")
            .listener(
                (ReleaseListener)
                    e -> {
                      if (e instanceof ReleaseEvent.Verifying) {
                        newer.set(true);
                      }
                    })
            .build();
    ReleaseInput first = input("one");
    Plan plan = releases.plan(first);

    assertThatThrownBy(() -> releases.cast(plan, first.payloads(), newer::get))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> {
              assertThat(e.getCause()).isInstanceOf(CastSupersededException.class);
              assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED);
              assertThat(e.result().release().failure())
                  .isEqualTo(
                      "superseded by a newer revision of the release: stopped waiting for 1"
                          + " object(s) to be healthy (ConfigMap/default/a); nothing more was"
                          + " written, and the newer revision is cast next");
            });
    // wave 1 is never written; the lease is given up
    assertThat(h.cluster.writes()).containsExactly("apply:ConfigMap/default/a", "verify");
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("lease:") || op.startsWith("record:create"))
        .containsExactly(
            "lease:acquire:default/app",
            "record:create:default/app#1:failed",
            "lease:release:default/app");

    h.cluster.clearOperations();
    ReleaseInput second = input("two");
    assertThat(releases.cast(second).release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:ConfigMap/default/a", "verify", "apply:ConfigMap/default/b", "verify");
  }

  @Test
  void aCastNobodySupersedesIsNotStopped() {
    ReleaseInput first = input("one");
    Plan plan = h.controller.plan(first);

    assertThat(h.controller.cast(plan, first.payloads(), () -> false).release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:ConfigMap/default/a", "verify", "apply:ConfigMap/default/b", "verify");
  }
}
