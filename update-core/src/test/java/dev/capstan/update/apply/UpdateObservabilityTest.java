package dev.capstan.update.apply;

import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.common.logging.LogCapture;
import dev.capstan.update.UpdateException;
import dev.capstan.update.build.BuildSettings;
import dev.capstan.update.build.ImageBuilder;
import dev.capstan.update.build.ImageBuilds;
import dev.capstan.update.event.UpdateEvent;
import dev.capstan.update.event.UpdateListener;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import dev.capstan.update.plan.ImageBuildAction;
import dev.capstan.update.result.UpdateResult;
import dev.capstan.update.result.WorkloadStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * What an apply tells a host: one bracket of events, {@code UpdateStarted} to {@code
 * UpdateFinished} with its outcome, counts and duration; log lines at INFO (outcome), DEBUG (each
 * step) and WARN (each rollback, each retried build); and a listener that throws breaks nothing.
 */
class UpdateObservabilityTest {
  private static final String LOGGER = "dev.capstan.update.apply.UpdateApplier";

  private final ManualClock clock = ManualClock.create();
  private final List<UpdateEvent> events = new ArrayList<>();
  private final ApplyOptions options =
      ApplyOptions.defaults()
          .withClock(clock)
          .withSleeper(Sleeper.manual(clock))
          .withListener(events::add);
  private final LogCapture logs = LogCapture.open();

  @AfterEach
  void close() {
    logs.close();
  }

  /** Changes operator, gateway-proxy, platform-api, runtime-api and ui: four Deployments. */
  private static PlatformRelease fiveChanges() {
    return release("v0.5.0")
        .tag("analytics-api", "v0.4.0")
        .tag("ingest", "v0.4.0")
        .tag("processor", "v0.4.0")
        .build();
  }

  @Test
  void anApplyIsBracketedByUpdateStartedAndUpdateFinishedWithItsOutcomeAndDuration() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    RolloutWaiter tenSecondsEach = (workload, timeout) -> clock.advance(Duration.ofSeconds(10));

    UpdateResult result =
        UpdateApplier.apply(
            cluster, plan(cluster, fiveChanges()), options.withWaiter(tenSecondsEach));

    assertThat(events.get(0)).isEqualTo(new UpdateEvent.UpdateStarted("v0.5.0", 4, 0));
    assertThat(events.get(events.size() - 1))
        .isEqualTo(
            new UpdateEvent.UpdateFinished(
                "v0.5.0", UpdateEvent.Outcome.COMPLETED, result, Duration.ofSeconds(40), null));
    UpdateEvent.UpdateFinished finished =
        (UpdateEvent.UpdateFinished) events.get(events.size() - 1);
    assertThat(finished.workloads(WorkloadStatus.UPDATED)).isEqualTo(4);
    assertThat(finished.message()).isEqualTo("Update to v0.5.0 completed in 40s: 4 updated");
    assertThat(logs.lines()).allMatch(l -> l.logger().equals(LOGGER));
    assertThat(logs.messages(Level.INFO)).containsExactly(finished.message());
    assertThat(logs.messages(Level.DEBUG))
        .contains(
            "Updating to v0.5.0: 4 workload(s)",
            "Patched mcp-platform/mcp-ui (ui); waiting for rollout",
            "Rolled out mcp-platform/mcp-ui");
    assertThat(logs.messages(Level.WARN)).isEmpty();
  }

  @Test
  void aRolledBackApplyWarnsPerRollbackAndReportsItsOutcomeAtInfo() {
    InMemoryPlatformCluster cluster = cluster("v0.4.0").neverReady(image("runtime-api", "v0.5.0"));

    UpdateApplier.apply(cluster, plan(cluster, fiveChanges()), options);

    assertThat(logs.messages(Level.WARN))
        .containsExactly(
            "Rolled back mcp-platform/mcp-runtime-api",
            "Rolled back mcp-platform/mcp-platform-api",
            "Rolled back mcp-runtime/mcp-runtime-operator-controller-manager");
    assertThat(logs.messages(Level.INFO))
        .singleElement()
        .asString()
        .matches("Update to v0.5.0 rolled back in \\S+: 3 rolled-back, 1 not-attempted");
    UpdateEvent.UpdateFinished finished =
        (UpdateEvent.UpdateFinished) events.get(events.size() - 1);
    assertThat(finished.outcome()).isEqualTo(UpdateEvent.Outcome.ROLLED_BACK);
  }

  @Test
  void aListenerThatThrowsIsLoggedAndTheUpdateGoesOnUnharmed() {
    PlatformRelease release =
        release("v0.5.0")
            .tag("analytics-api", "v0.4.0")
            .tag("ingest", "v0.4.0")
            .tag("processor", "v0.4.0")
            .crds(crd("mcpservers", "MCPServer", "v1alpha2"))
            .build();
    InMemoryPlatformCluster cluster = cluster("v0.4.0");
    cluster.putCrd("mcpservers.mcpruntime.org", Map.of("group", "mcpruntime.org"));
    List<UpdateEvent> second = new ArrayList<>();
    UpdateListener exploding = new Exploding();

    UpdateResult result =
        UpdateApplier.apply(
            cluster,
            plan(cluster, release),
            options.withListener(UpdateListener.all(List.of(exploding, second::add))));

    assertThat(result.failed()).isFalse();
    assertThat(result.workloads()).extracting(w -> w.status().label()).containsOnly("updated");
    assertThat(second).first().isInstanceOf(UpdateEvent.UpdateStarted.class);
    assertThat(second).last().isInstanceOf(UpdateEvent.UpdateFinished.class);
    List<LogCapture.Line> warnings =
        logs.lines().stream().filter(l -> l.level() == Level.WARN).toList();
    assertThat(warnings).hasSize(second.size());
    assertThat(warnings)
        .extracting(LogCapture.Line::message)
        .contains(
            "listener dev.capstan.update.apply.UpdateObservabilityTest$Exploding threw on event"
                + " CrdApplied; the operation goes on without it");
    assertThat(warnings.get(0).logger()).isEqualTo("dev.capstan.update.event.UpdateListener");
    assertThat(warnings.get(0).error()).hasMessage("listener bug");
  }

  static final class Exploding implements UpdateListener {
    @Override
    public void onEvent(UpdateEvent event) {
      throw new IllegalStateException("listener bug");
    }
  }

  @Test
  void aListenerMayKeepEachApplysEventsApart() {
    List<List<UpdateEvent>> applies = new ArrayList<>();
    UpdateListener perApply =
        new UpdateListener() {
          @Override
          public void onEvent(UpdateEvent event) {
            throw new AssertionError("every apply event belongs to an apply: " + event);
          }

          @Override
          public UpdateListener begin(UpdateEvent.UpdateStarted started) {
            List<UpdateEvent> mine = new ArrayList<>();
            applies.add(mine);
            return mine::add;
          }
        };
    InMemoryPlatformCluster first = cluster("v0.4.0");
    InMemoryPlatformCluster second = cluster("v0.4.0");

    UpdateApplier.apply(first, plan(first, fiveChanges()), options.withListener(perApply));
    UpdateApplier.apply(second, plan(second, fiveChanges()), options.withListener(perApply));

    assertThat(applies).hasSize(2);
    for (List<UpdateEvent> apply : applies) {
      assertThat(apply.get(0)).isInstanceOf(UpdateEvent.UpdateStarted.class);
      assertThat(apply.get(apply.size() - 1)).isInstanceOf(UpdateEvent.UpdateFinished.class);
      assertThat(apply).filteredOn(UpdateEvent.WorkloadRolledOut.class::isInstance).hasSize(4);
    }
  }

  @Test
  void aRetriedImageBuildIsAWarning() {
    AtomicInteger attempts = new AtomicInteger();
    ImageBuilder flaky =
        new ImageBuilder() {
          @Override
          public void build(dev.capstan.update.build.BuildRequest request) {
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
        events::add);

    assertThat(logs.lines())
        .filteredOn(l -> l.level() == Level.WARN)
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.logger()).isEqualTo("dev.capstan.update.build.ImageBuilds");
              assertThat(l.message())
                  .isEqualTo("Build of reg/api:v2 failed (attempt 1), retrying: registry hiccup");
            });
  }
}
