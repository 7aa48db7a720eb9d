package dev.capstan.opentelemetry;

import static dev.capstan.update.McpRuntime.cluster;
import static dev.capstan.update.McpRuntime.crd;
import static dev.capstan.update.McpRuntime.image;
import static dev.capstan.update.McpRuntime.plan;
import static dev.capstan.update.McpRuntime.release;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.update.apply.ApplyOptions;
import dev.capstan.update.apply.UpdateApplier;
import dev.capstan.update.manifest.PlatformRelease;
import dev.capstan.update.memory.InMemoryPlatformCluster;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class UpdateTracingTest {
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final ManualClock clock = ManualClock.create();
  private final ApplyOptions options =
      ApplyOptions.defaults()
          .withClock(clock)
          .withSleeper(Sleeper.manual(clock))
          .withListener(UpdateTracing.of(provider.get(UpdateTracing.SCOPE)));

  @AfterEach
  void close() {
    provider.close();
  }

  private static PlatformRelease fourWorkloads(String crds) {
    var release =
        release("v0.5.0")
            .tag("analytics-api", "v0.4.0")
            .tag("ingest", "v0.4.0")
            .tag("processor", "v0.4.0");
    return crds.isEmpty() ? release.build() : release.crds(crds).build();
  }

  private List<SpanData> named(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  @Test
  void anApplyIsOneSpanWithAWaitPerCrdAndPerRollout() {
    InMemoryPlatformCluster platform = cluster("v0.4.0");
    platform.putCrd("mcpservers.mcpruntime.org", Map.of("group", "mcpruntime.org"));

    UpdateApplier.apply(
        platform,
        plan(platform, fourWorkloads(crd("mcpservers", "MCPServer", "v1alpha2"))),
        options);

    SpanData update = named("capstan update").get(0);
    assertThat(update.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey(UpdateTracing.TARGET_VERSION), "v0.5.0")
        .containsEntry(AttributeKey.longKey(UpdateTracing.WORKLOADS), 4L)
        .containsEntry(AttributeKey.longKey(UpdateTracing.CRDS), 1L)
        .containsEntry(AttributeKey.stringKey(UpdateTracing.OUTCOME), "completed")
        .containsEntry(AttributeKey.longKey("capstan.workloads.updated"), 4L);
    assertThat(update.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(exporter.getFinishedSpanItems())
        .filteredOn(s -> !s.getName().equals("capstan update"))
        .allMatch(s -> s.getParentSpanId().equals(update.getSpanId()))
        .extracting(
            s ->
                s.getName()
                    + " "
                    + s.getAttributes().get(AttributeKey.stringKey(UpdateTracing.CRD))
                    + " "
                    + s.getAttributes().get(AttributeKey.stringKey(UpdateTracing.NAMESPACE))
                    + "/"
                    + s.getAttributes().get(AttributeKey.stringKey(UpdateTracing.DEPLOYMENT)))
        .containsExactly(
            "capstan wait crd mcpservers.mcpruntime.org null/null",
            "capstan wait rollout null mcp-runtime/mcp-runtime-operator-controller-manager",
            "capstan wait rollout null mcp-platform/mcp-platform-api",
            "capstan wait rollout null mcp-platform/mcp-runtime-api",
            "capstan wait rollout null mcp-platform/mcp-ui");
    assertThat(update.getAttributes().get(AttributeKey.stringKey(UpdateTracing.ERROR_TYPE)))
        .isNull();
  }

  @Test
  void aFailedRolloutEndsInErrorAndItsRollbacksAreSpanEvents() {
    InMemoryPlatformCluster platform = cluster("v0.4.0").neverReady(image("runtime-api", "v0.5.0"));

    UpdateApplier.apply(platform, plan(platform, fourWorkloads("")), options);

    SpanData update = named("capstan update").get(0);
    assertThat(update.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(update.getAttributes().get(AttributeKey.stringKey(UpdateTracing.OUTCOME)))
        .isEqualTo("rolled_back");
    assertThat(update.getAttributes().get(AttributeKey.stringKey(UpdateTracing.ERROR_TYPE)))
        .isEqualTo("rolled_back");
    assertThat(update.getEvents())
        .extracting(
            e ->
                e.getName()
                    + " "
                    + e.getAttributes().get(AttributeKey.stringKey(UpdateTracing.WORKLOAD)))
        .containsExactly(
            "rolled-back mcp-platform/mcp-runtime-api",
            "rolled-back mcp-platform/mcp-platform-api",
            "rolled-back mcp-runtime/mcp-runtime-operator-controller-manager");
    SpanData failed = named("capstan wait rollout").get(2);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getStatus().getDescription()).startsWith("rollout did not complete within");
  }
}
