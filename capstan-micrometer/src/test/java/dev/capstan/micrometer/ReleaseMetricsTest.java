package dev.capstan.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.common.logging.LogCapture;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReleaseMetricsTest {
  private static final String NS = "default";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final InMemoryCluster cluster = InMemoryCluster.create();

  private static ConfigMapSpec config(String name) {
    return ConfigMapSpec.of(NS, name, Map.of("k", name));
  }

  private ReleaseController controller(ReleaseMetrics metrics) {
    return ReleaseController.builder(cluster, cluster).listener(metrics).build();
  }

  private static void cast(ReleaseController c, String name, Payloads p) {
    c.cast(ReleaseSpec.of(NS, name, p), p);
  }

  private Timer timer(String operation, String outcome) {
    return registry
        .get(ReleaseMetrics.OPERATION)
        .tags("operation", operation, "outcome", outcome)
        .timer();
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void aCastIsTimedByOutcomeItsWritesAreCountedAndItIsInFlightWhileItRuns() {
    // the two ConfigMaps are written at once: their Done events come from two worker threads
    List<Long> inFlight = new CopyOnWriteArrayList<>();
    ReleaseController releases =
        ReleaseController.builder(cluster, cluster)
            .listener(ReleaseMetrics.of(registry))
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Done) {
                    inFlight.add(
                        (long)
                            registry
                                .get(ReleaseMetrics.ACTIVE)
                                .tags("operation", "cast")
                                .longTaskTimer()
                                .activeTasks());
                  }
                })
            .build();

    long before = System.nanoTime();
    cast(releases, "app", Payloads.of(config("a"), config("b")));
    long elapsed = System.nanoTime() - before;

    assertThat(timer("cast", "succeeded").count()).isEqualTo(1);
    assertThat(timer("cast", "succeeded").totalTime(TimeUnit.NANOSECONDS))
        .isPositive()
        .isLessThanOrEqualTo((double) elapsed);
    assertThat(count(ReleaseMetrics.WRITES, "action", "create")).isEqualTo(2);
    assertThat(inFlight).containsExactly(1L, 1L);
    assertThat(
            registry
                .get(ReleaseMetrics.ACTIVE)
                .tags("operation", "cast")
                .longTaskTimer()
                .activeTasks())
        .isZero();
    assertThat(registry.find(ReleaseMetrics.OPERATION).tags("outcome", "failed").timer()).isNull();
    assertThat(timer("cast", "succeeded").getId().getTag("error")).isEqualTo("none");
  }

  @Test
  void everyOperationIsTimedUnderItsOwnTag() {
    ReleaseController releases = controller(ReleaseMetrics.of(registry));
    Payloads v1 = Payloads.of(config("a"));
    cast(releases, "app", v1);
    cast(releases, "app", Payloads.of(config("a"), config("b")));

    releases.plan(ReleaseSpec.of(NS, "app", v1));
    releases.rollback(NS, "app", 1);
    releases.uninstall(NS, "app", UninstallOptions.defaults());

    assertThat(timer("cast", "succeeded").count()).isEqualTo(2);
    assertThat(timer("plan", "succeeded").count()).isEqualTo(1);
    assertThat(timer("rollback", "succeeded").count()).isEqualTo(1);
    assertThat(timer("uninstall", "succeeded").count()).isEqualTo(1);
    assertThat(count(ReleaseMetrics.WRITES, "action", "create")).isEqualTo(2);
    assertThat(count(ReleaseMetrics.WRITES, "action", "prune")).isEqualTo(2);
  }

  @Test
  void conflictsFencesAndFailuresAreCounted() {
    ReleaseController releases = controller(ReleaseMetrics.of(registry));
    cluster.put(config("taken"));
    Payloads taken = Payloads.of(config("taken"));
    assertThatThrownBy(() -> cast(releases, "app", taken))
        .isInstanceOf(ReleaseConflictException.class);

    ReleaseController racing =
        ReleaseController.builder(cluster, cluster)
            .listener(ReleaseMetrics.of(registry))
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Started s && s.action() == Action.CREATE) {
                    cluster.put(config("raced"));
                  }
                })
            .build();
    Payloads raced = Payloads.of(config("raced"));
    assertThatThrownBy(() -> cast(racing, "other", raced)).isInstanceOf(CastFailedException.class);

    assertThat(count(ReleaseMetrics.CONFLICTS, "operation", "cast")).isEqualTo(1);
    assertThat(timer("cast", "conflict").count()).isEqualTo(1);
    assertThat(count(ReleaseMetrics.FENCES, "action", "create")).isEqualTo(1);
    assertThat(timer("cast", "failed").count()).isEqualTo(1);
    assertThat(registry.find(ReleaseMetrics.WRITES).counters()).isEmpty();
    assertThat(registry.get(ReleaseMetrics.OPERATION).timers())
        .extracting(t -> t.getId().getTag("outcome") + " " + t.getId().getTag("error"))
        .containsExactlyInAnyOrder(
            "conflict ReleaseConflictException", "failed CastFailedException");
  }

  @Test
  void aQueueBehindTheLeaseAndARetriedRenewalAreCounted() throws InterruptedException {
    ManualClock clock = ManualClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    cluster.putLease(
        NS, "app", new Lease("someone else", clock.instant(), clock.instant().plusSeconds(1)));
    cluster.faults().failOn(Operation.LEASE_RENEW, 1);
    CountDownLatch retried = new CountDownLatch(1);
    ReleaseController releases =
        ReleaseController.builder(cluster, cluster)
            .clock(clock)
            .sleeper(Sleeper.manual(clock))
            .waitForLease(Duration.ofSeconds(30))
            .leaseRenewal(Duration.ofMillis(5))
            .listener(ReleaseMetrics.of(registry))
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Retrying) {
                    retried.countDown();
                  } else if (e instanceof ReleaseEvent.Done) {
                    try {
                      assertThat(retried.await(30, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException x) {
                      Thread.currentThread().interrupt();
                    }
                  }
                })
            .build();

    cast(releases, "app", Payloads.of(config("a")));

    assertThat(count(ReleaseMetrics.LEASE_WAITS)).isEqualTo(1);
    assertThat(count(ReleaseMetrics.RETRIES)).isEqualTo(1);
    assertThat(timer("cast", "succeeded").count()).isEqualTo(1);
  }

  @Test
  void releaseTagsNameTheNamespaceAndTheRelease() {
    ReleaseController releases = controller(ReleaseMetrics.of(registry).withReleaseTags());

    cast(releases, "app", Payloads.of(config("a")));

    assertThat(
            registry
                .get(ReleaseMetrics.OPERATION)
                .tags(
                    "operation", "cast", "outcome", "succeeded", "namespace", NS, "release", "app")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(
            registry
                .get(ReleaseMetrics.WRITES)
                .tags("action", "create", "namespace", NS, "release", "app")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void noSecretValueAppearsInAMeterNameTagOrLogLine() {
    String marker = "marker-7f3e9c-NOT-FOR-METRICS";
    ReleaseController releases = controller(ReleaseMetrics.of(registry).withReleaseTags());
    List<String> seen = new ArrayList<>();
    try (LogCapture logs = LogCapture.open()) {
      Payloads p = Payloads.of(SecretSpec.of(NS, "creds", Map.of("password", marker)));
      cast(releases, "app", p);
      Payloads changed = Payloads.of(SecretSpec.of(NS, "creds", Map.of("password", marker + "2")));
      cluster.faults().failOn(Operation.APPLY, "Secret/default/creds");
      assertThatThrownBy(() -> cast(releases, "app", changed))
          .isInstanceOf(CastFailedException.class);
      cluster.faults().clear();
      releases.plan(ReleaseSpec.of(NS, "app", changed), changed);
      releases.planRollback(NS, "app", 1);
      releases.rollback(NS, "app", 1);
      releases.uninstall(NS, "app", UninstallOptions.defaults());
      logs.lines().forEach(l -> seen.add(l.text()));
    }
    for (Meter meter : registry.getMeters()) {
      seen.add(meter.getId().getName());
      meter.getId().getTags().stream().map(Tag::getValue).forEach(seen::add);
      meter.getId().getTags().stream().map(Tag::getKey).forEach(seen::add);
    }

    assertThat(seen).anyMatch(s -> s.contains("Secret/default/creds"));
    String base64 = Base64.getEncoder().encodeToString(marker.getBytes(StandardCharsets.UTF_8));
    assertThat(String.join("\n", seen)).doesNotContain(marker).doesNotContain(base64);
    assertThat(timer("cast", "failed").count()).isEqualTo(1);
    assertThat(timer("rollback", "succeeded").count()).isEqualTo(1);
    assertThat(timer("plan", "succeeded").count()).isEqualTo(2);
  }
}
