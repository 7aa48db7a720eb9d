package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.result.DetachedCast;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Detached casts (rune's --detach): create/update only, finished in the background. */
class DetachedCastTest {
  private final Fixtures.Harness h = new Fixtures.Harness();
  private final List<Runnable> queued = new ArrayList<>();

  @Test
  void returnsWithThePendingRecordSavedAndFinishesOnTheExecutor() throws Exception {
    Payloads p = payloads(web("web:1"), creds("pw"));

    DetachedCast d = h.controller.castDetached(spec("app", p), p, queued::add);

    assertThat(d.pending().status()).isEqualTo(ReleaseStatus.PENDING);
    assertThat(h.controller.get(NS, "app").orElseThrow().status()).isEqualTo(ReleaseStatus.PENDING);
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(d.completion()).isNotDone();

    queued.forEach(Runnable::run);

    assertThat(d.completion().get().release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.writes())
        .containsExactly(
            "apply:Secret/default/creds",
            "apply:apps/Deployment/default/web",
            "apply:Service/default/web",
            "verify");
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void aPlanThatPrunesIsRefusedBeforeAnyWrite() {
    h.cast("app", payloads(configMap("a", "1"), configMap("b", "1")));
    h.cluster.clearOperations();
    Payloads p = payloads(configMap("a", "1"));

    assertThatThrownBy(() -> h.controller.castDetached(spec("app", p), p, queued::add))
        .isInstanceOf(ReleaseException.class)
        .hasMessage(
            "release default/app: a detached cast may not prune (1 to prune); cast it in the"
                + " foreground; nothing was written");
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.operations())
        .noneMatch(op -> op.startsWith("record:create") || op.startsWith("lease:"));
  }

  @Test
  void aFailureCompletesExceptionallyWithTheFailedRecord() {
    h.cluster.neverReady("web:bad", "CrashLoopBackOff");
    Payloads p = payloads(web("web:bad"), creds("pw"));

    DetachedCast d = h.controller.castDetached(spec("app", p), p, Runnable::run);

    assertThatThrownBy(() -> d.completion().get())
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e -> assertThat(e.result().release().status()).isEqualTo(ReleaseStatus.FAILED));
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
  }

  @Test
  void aRejectedExecutorRecordsTheFailureAndReleasesTheLease() {
    Payloads p = payloads(configMap("a", "1"));

    assertThatThrownBy(
            () ->
                h.controller.castDetached(
                    spec("app", p),
                    p,
                    r -> {
                      throw new java.util.concurrent.RejectedExecutionException("pool closed");
                    }))
        .hasMessage("pool closed");
    assertThat(h.controller.get(NS, "app").orElseThrow().status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(h.cluster.lease(NS, "app")).isEmpty();
    assertThat(h.cluster.writes()).isEmpty();
  }
}
