package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.capstan.common.logging.LogCapture;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * What the controller logs through SLF4J (logger {@code dev.capstan.release.ReleaseController}):
 * one INFO line per cast, rollback and uninstall outcome, DEBUG per write, WARN per retry and per
 * fence.
 */
class ReleaseLoggingTest {
  private static final String LOGGER = "dev.capstan.release.ReleaseController";

  private final Fixtures.Harness h = new Fixtures.Harness();
  private final LogCapture logs = LogCapture.open();

  @AfterEach
  void close() {
    logs.close();
  }

  @Test
  void aCastLogsOneInfoLineWithItsOutcomeAndADebugLinePerWrite() {
    Payloads p = payloads(configMap("a", "1"), configMap("b", "1"));

    h.cast("app", p);

    assertThat(logs.lines()).allMatch(l -> l.logger().equals(LOGGER));
    assertThat(logs.messages(Level.INFO))
        .singleElement()
        .asString()
        .matches(
            "default/app: cast finished in \\d+(\\.\\d)?m?s: revision 1 deployed \\(2 create, 1"
                + " reference; 2 writes\\)");
    assertThat(logs.messages(Level.DEBUG))
        .contains(
            "default/app: create ConfigMap/default/a done",
            "default/app: create ConfigMap/default/b done",
            "default/app: recorded revision 1 as deployed");
    assertThat(logs.messages(Level.TRACE)).contains("default/app: create ConfigMap/default/a ...");
    assertThat(logs.messages(Level.WARN)).isEmpty();
  }

  @Test
  void rollbackAndUninstallLogTheirOutcomeAtInfoAndPlansOnlyAtDebug() {
    h.cast("app", payloads(configMap("a", "1")));
    h.cast("app", payloads(configMap("a", "2")));
    logs.clear();

    h.controller.planRollback(NS, "app", 1);
    h.controller.rollback(NS, "app", 1);
    h.controller.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(logs.messages(Level.INFO))
        .hasSize(2)
        .satisfiesExactly(
            l ->
                assertThat(l)
                    .matches(
                        "default/app: rollback finished in \\S+: revision 3 deployed \\(1"
                            + " update, 1 reference; 1 write\\)"),
            l ->
                assertThat(l)
                    .matches(
                        "default/app: uninstall finished in \\S+: revision 3 uninstalled \\(1"
                            + " prune; 1 write\\)"));
    assertThat(logs.messages(Level.DEBUG))
        .anyMatch(l -> l.matches("default/app: plan finished in \\S+: revision 3 planned .*"));
  }

  @Test
  void aRefusedCastLogsItsOutcomeAndReasonAtInfo() {
    h.cluster.put(configMap("taken", "theirs"));
    Payloads p = payloads(configMap("taken", "mine"));

    Throwable refused = catchThrowable(() -> h.cast("app", p));

    assertThat(logs.messages(Level.INFO))
        .singleElement()
        .asString()
        .startsWith("default/app: cast refused in ")
        .endsWith(
            " (conflict): "
                + java.util.Objects.requireNonNull(refused.getMessage()).replace("\n", "\\n"));
  }

  @Test
  void aFencedWriteIsAWarning() {
    InMemoryCluster cluster = h.cluster;
    ReleaseController controller =
        ReleaseController.builder(cluster, cluster)
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Started s && s.action() == Action.CREATE) {
                    cluster.put(configMap("a", "someone else's"));
                  }
                })
            .build();
    Payloads p = payloads(configMap("a", "1"));

    Throwable failed = catchThrowable(() -> controller.cast(spec("app", p), p));

    assertThat(failed).isInstanceOf(CastFailedException.class);
    assertThat(logs.messages(Level.WARN))
        .containsExactly(
            "default/app: fenced create ConfigMap/default/a: "
                + java.util.Objects.requireNonNull(failed.getCause()).getMessage());
    assertThat(logs.messages(Level.INFO))
        .singleElement()
        .asString()
        .startsWith("default/app: cast finished in ")
        .contains(": revision 1 failed (1 create, 1 reference; 0 writes): ");
  }

  @Test
  void aRetriedLeaseRenewalIsAWarning() throws InterruptedException {
    InMemoryCluster cluster = InMemoryCluster.create();
    cluster.faults().failOn(Operation.LEASE_RENEW, 1);
    CountDownLatch retried = new CountDownLatch(1);
    ReleaseController controller =
        ReleaseController.builder(cluster, cluster)
            .leaseRenewal(Duration.ofMillis(5))
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Retrying) {
                    retried.countDown();
                  } else if (e instanceof ReleaseEvent.Done) {
                    await(retried);
                  }
                })
            .build();
    Payloads p = payloads(configMap("a", "1"));

    controller.cast(spec("app", p), p);

    assertThat(logs.messages(Level.WARN))
        .singleElement()
        .asString()
        .startsWith("default/app: retrying renew the lease in 5ms (attempt 2): renewal failed");
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
