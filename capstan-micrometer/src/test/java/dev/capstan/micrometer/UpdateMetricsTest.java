package dev.capstan.micrometer;

import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.update.UpdateException;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.build.BuildRequest;
import dev.capstan.update.build.BuildSettings;
import dev.capstan.update.build.ImageBuilder;
import dev.capstan.update.build.ImageBuilds;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.ImageBuildAction;
import dev.capstan.update.plan.UpdateBlockedException;
import dev.capstan.update.plan.UpdatePlan;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class UpdateMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ManualClock clock = ManualClock.create();
  private final ApplyOptions options =
      ApplyOptions.defaults().withClock(clock).withSleeper(Sleeper.manual(clock));

  /** Changes four Deployments of the example platform. */
  private static PlatformRelease fourWorkloads() {
    return release("v0.5.0")
        .tag("analytics-api", "v0.4.0")
        .tag("ingest", "v0.4.0")
        .tag("processor", "v0.4.0")
        .build();
  }

  private Timer timer(String operation, String outcome) {
    return registry
        .get(UpdateMetrics.OPERATION)
        .tags("operation", operation, "outcome", outcome)
        .timer();
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void anApplyIsTimedByOutcomeByItsOwnClockItsPatchesCountedAndInFlightWhileItRuns() {
    InMemoryPlatformCluster platform = cluster("v0.4.0");
    List<Integer> inFlight = new ArrayList<>();
    Instant start = clock.instant();
    UpdateListener probe =
        e -> {
          if (e instanceof UpdateEvent.WorkloadRolledOut) {
            inFlight.add(registry.get(UpdateMetrics.ACTIVE).longTaskTimer().activeTasks());
          }
        };

    UpdateApplier.apply(
        platform,
        plan(platform, fourWorkloads()),
        options.withListener(UpdateListener.all(List.of(UpdateMetrics.of(registry), probe))));

    assertThat(timer("update", "completed").count()).isEqualTo(1);
    assertThat(timer("update", "completed").totalTime(TimeUnit.NANOSECONDS))
        .isEqualTo((double) Duration.between(start, clock.instant()).toNanos());
    assertThat(count(UpdateMetrics.WRITES, "kind", "workload")).isEqualTo(4);
    assertThat(inFlight).containsExactly(1, 1, 1, 1);
    assertThat(registry.get(UpdateMetrics.ACTIVE).longTaskTimer().activeTasks()).isZero();
  }

  @Test
  void aFailedRolloutCountsItsRollbacksAndIsTimedAsRolledBack() {
    InMemoryPlatformCluster platform = cluster("v0.4.0").neverReady(image("runtime-api", "v0.5.0"));

    UpdateApplier.apply(
        platform,
        plan(platform, fourWorkloads()),
        options.withListener(UpdateMetrics.of(registry)));

    assertThat(timer("update", "rolled_back").count()).isEqualTo(1);
    assertThat(count(UpdateMetrics.ROLLBACKS, "outcome", "rolled_back")).isEqualTo(3);
    assertThat(count(UpdateMetrics.WRITES, "kind", "workload")).isEqualTo(3);
    assertThat(count(UpdateMetrics.WRITES, "kind", "rollback")).isEqualTo(3);
    assertThat(registry.find(UpdateMetrics.OPERATION).tags("outcome", "completed").timer())
        .isNull();
  }

  /**
   * Plans as a host's update flow does: the plan, timed by the host and told to the listener as a
   * {@link UpdateEvent.Planned} event (the CLI sends the same event); a blocked plan is then
   * refused by the applier, before any write.
   */
  private void dryRun(InMemoryPlatformCluster platform, PlatformRelease release) {
    UpdateListener metrics = UpdateMetrics.of(registry);
    Instant start = clock.instant();
    UpdatePlan plan = plan(platform, release);
    metrics.onEvent(
        new UpdateEvent.Planned(
            plan.targetVersion(),
            plan.installedVersion(),
            plan.changed().size(),
            plan.blocked().size() + plan.blockedCrds().size(),
            Duration.between(start, clock.instant())));
    if (plan.isBlocked()) {
      UpdateApplier.apply(platform, plan, options.withListener(metrics));
    }
  }

  @Test
  void plansAreTimedPlannedOrBlocked() {
    dryRun(cluster("v0.4.0"), fourWorkloads());
    assertThatThrownBy(() -> dryRun(cluster("v0.6.0"), fourWorkloads()))
        .isInstanceOf(UpdateBlockedException.class);

    assertThat(timer("plan", "planned").count()).isEqualTo(1);
    assertThat(timer("plan", "blocked").count()).isEqualTo(1);
    assertThat(registry.find(UpdateMetrics.OPERATION).tags("operation", "update").timers())
        .isEmpty();
  }

  @Test
  void retriedImageBuildsAreCounted() {
    AtomicInteger attempts = new AtomicInteger();
    ImageBuilder flaky =
        new ImageBuilder() {
          @Override
          public void build(BuildRequest request) {
            if (attempts.incrementAndGet() == 1) {
              throw new UpdateException("registry hiccup");
            }
          }

          @Override
          public void push(String image) {}
        };

    ImageBuilds.run(
        List.of(ImageBuildAction.build("api", "reg/api:v2", "b")),
        flaky,
        null,
        new BuildSettings("linux/amd64", "/src", 1, 1),
        UpdateMetrics.of(registry));

    assertThat(count(UpdateMetrics.RETRIES)).isEqualTo(1);
  }
}
