package dev.capstan.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.capstan.common.ManualClock;
import dev.capstan.common.Sleeper;
import dev.capstan.common.logging.LogCapture;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.ReleaseConflictException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReleaseTracingTest {
  private static final String NS = "default";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
  private final InMemoryCluster cluster = InMemoryCluster.create();
  private final ReleaseController releases =
      ReleaseController.builder(cluster, cluster)
          .listener(ReleaseTracing.of(provider.get(ReleaseTracing.SCOPE)))
          .build();

  @AfterEach
  void close() {
    provider.close();
  }

  private static ConfigMapSpec config(String name) {
    return ConfigMapSpec.of(NS, name, Map.of("k", name));
  }

  private static Manifest inWave(int wave, String name) {
    return Manifest.of(
        Map.of(
            "apiVersion", "v1",
            "kind", "ConfigMap",
            "metadata", Map.of("name", name, "annotations", Map.of("capstan.dev/wave", "" + wave))),
        NS);
  }

  private void cast(String name, Payloads p) {
    releases.cast(ReleaseSpec.of(NS, name, p), p);
  }

  private SpanData span(String name) {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + ": " + names()));
  }

  private List<String> names() {
    return exporter.getFinishedSpanItems().stream().map(SpanData::getName).toList();
  }

  private List<SpanData> children(SpanData parent) {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getParentSpanId().equals(parent.getSpanId()))
        .toList();
  }

  @Test
  void aCastIsOneSpanWithAChildPerWaveAndPerWaitUnderTheCallersSpan() {
    Span caller = provider.get("host").spanBuilder("deploy shop").startSpan();
    Scope scope = caller.makeCurrent();
    try {
      cast("app", Payloads.of(inWave(-1, "first"), config("second"), config("third")));
    } finally {
      scope.close();
      caller.end();
    }

    SpanData operation = span("capstan cast");
    assertThat(operation.getParentSpanId()).isEqualTo(caller.getSpanContext().getSpanId());
    assertThat(operation.getTraceId()).isEqualTo(caller.getSpanContext().getTraceId());
    assertThat(operation.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey(ReleaseTracing.NAMESPACE), NS)
        .containsEntry(AttributeKey.stringKey(ReleaseTracing.NAME), "app")
        .containsEntry(AttributeKey.stringKey(ReleaseTracing.OPERATION), "cast")
        .containsEntry(AttributeKey.stringKey(ReleaseTracing.OUTCOME), "succeeded")
        .containsEntry(AttributeKey.longKey(ReleaseTracing.REVISION), 1L)
        .containsEntry(AttributeKey.stringKey(ReleaseTracing.STATUS), "deployed")
        .containsEntry(AttributeKey.longKey(ReleaseTracing.WRITES), 3L)
        .containsEntry(AttributeKey.longKey("capstan.changes.create"), 3L);
    assertThat(operation.getAttributes().get(AttributeKey.stringKey("k8s.namespace.name")))
        .isEqualTo(NS);
    assertThat(operation.getAttributes().get(AttributeKey.stringKey(ReleaseTracing.ERROR_TYPE)))
        .isNull();
    assertThat(operation.getEvents()).isEmpty();
    assertThat(operation.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

    List<SpanData> waves = children(operation);
    assertThat(waves).extracting(SpanData::getName).containsExactly("capstan wave", "capstan wave");
    assertThat(waves)
        .extracting(
            w -> w.getAttributes().get(AttributeKey.longKey(ReleaseTracing.WAVE)),
            w -> w.getAttributes().get(AttributeKey.longKey(ReleaseTracing.WAVE_WRITES)))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(-1L, 1L),
            org.assertj.core.groups.Tuple.tuple(0L, 2L));
    for (SpanData wave : waves) {
      assertThat(children(wave))
          .singleElement()
          .satisfies(wait -> assertThat(wait.getName()).isEqualTo("capstan wait healthy"));
    }
    assertThat(
            children(waves.get(1))
                .get(0)
                .getAttributes()
                .get(AttributeKey.longKey(ReleaseTracing.OBJECTS)))
        .isEqualTo(2L);
    assertThat(names())
        .containsExactly(
            "capstan wait healthy",
            "capstan wave",
            "capstan wait healthy",
            "capstan wave",
            "capstan cast",
            "deploy shop");
  }

  @Test
  void aFailedWaitEndsWithItsWaveAndTheOperationInError() {
    ServiceSpec never = ServiceSpec.builder(NS, "web").image("web:broken").build();
    cluster.neverReady("web:broken", "CrashLoopBackOff");

    Throwable failed = catchThrowable(() -> cast("app", Payloads.of(never)));

    SpanData operation = span("capstan cast");
    assertThat(operation.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(operation.getStatus().getDescription())
        .isEqualTo(((CastFailedException) failed).result().release().failure());
    assertThat(operation.getAttributes().get(AttributeKey.stringKey(ReleaseTracing.OUTCOME)))
        .isEqualTo("failed");
    assertThat(operation.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("dev.capstan.release.error.CastFailedException");
    assertThat(operation.getEvents())
        .singleElement()
        .satisfies(
            exception -> {
              assertThat(exception.getName()).isEqualTo("exception");
              assertThat(exception.getAttributes().get(AttributeKey.stringKey("exception.type")))
                  .isEqualTo("dev.capstan.release.error.CastFailedException");
              assertThat(exception.getAttributes().get(AttributeKey.stringKey("exception.message")))
                  .isEqualTo(failed.getMessage());
              assertThat(
                      exception.getAttributes().get(AttributeKey.stringKey("exception.stacktrace")))
                  .startsWith("dev.capstan.release.error.CastFailedException: ");
            });
    SpanData wave = span("capstan wave");
    assertThat(wave.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span("capstan wait healthy").getStatus().getStatusCode())
        .isEqualTo(StatusCode.ERROR);
  }

  @Test
  void refusalsFencesAndLeaseWaitsAreOnTheOperationsSpan() {
    cluster.put(config("taken"));
    assertThatThrownBy(() -> cast("app", Payloads.of(config("taken"))))
        .isInstanceOf(ReleaseConflictException.class);

    ManualClock clock = ManualClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    cluster.putLease(
        NS, "queued", new Lease("someone", clock.instant(), clock.instant().plusSeconds(1)));
    ReleaseController queued =
        ReleaseController.builder(cluster, cluster)
            .clock(clock)
            .sleeper(Sleeper.manual(clock))
            .waitForLease(Duration.ofSeconds(30))
            .listener(ReleaseTracing.of(provider.get(ReleaseTracing.SCOPE)))
            .build();
    Payloads p = Payloads.of(config("q"));
    queued.cast(ReleaseSpec.of(NS, "queued", p), p);

    List<SpanData> casts =
        exporter.getFinishedSpanItems().stream()
            .filter(s -> s.getName().equals("capstan cast"))
            .toList();
    assertThat(casts).hasSize(2);
    assertThat(casts.get(0).getAttributes().get(AttributeKey.stringKey(ReleaseTracing.OUTCOME)))
        .isEqualTo("conflict");
    assertThat(casts.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(casts.get(0).getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("dev.capstan.release.error.ReleaseConflictException");
    SpanData leaseWait = span("capstan wait lease");
    assertThat(leaseWait.getParentSpanId()).isEqualTo(casts.get(1).getSpanId());
    assertThat(leaseWait.getAttributes().get(AttributeKey.stringKey(ReleaseTracing.HOLDER)))
        .isEqualTo("someone");
  }

  @Test
  void uninstallAndPlanAreSpansToo() {
    Payloads p = Payloads.of(config("a"));
    cast("app", p);
    releases.plan(ReleaseSpec.of(NS, "app", p));
    releases.uninstall(NS, "app", UninstallOptions.defaults().withWait(Duration.ofSeconds(5)));

    SpanData uninstall = span("capstan uninstall");
    assertThat(uninstall.getAttributes().get(AttributeKey.longKey("capstan.changes.prune")))
        .isEqualTo(1L);
    assertThat(children(uninstall))
        .extracting(SpanData::getName)
        .containsExactly("capstan wait healthy");
    assertThat(
            span("capstan plan")
                .getAttributes()
                .get(AttributeKey.stringKey(ReleaseTracing.OPERATION)))
        .isEqualTo("plan");
  }

  @Test
  void noSecretValueAppearsInASpanNameAttributeEventStatusOrLogLine() {
    String marker = "marker-51c0de-NOT-FOR-TRACES";
    List<String> seen = new ArrayList<>();
    try (LogCapture logs = LogCapture.open()) {
      cast("app", Payloads.of(SecretSpec.of(NS, "creds", Map.of("password", marker))));
      cluster.faults().failOn(Operation.APPLY, "Secret/default/creds");
      Payloads changed = Payloads.of(SecretSpec.of(NS, "creds", Map.of("password", marker + "2")));
      assertThatThrownBy(() -> cast("app", changed)).isInstanceOf(CastFailedException.class);
      cluster.faults().clear();
      releases.plan(ReleaseSpec.of(NS, "app", changed), changed);
      releases.planRollback(NS, "app", 1);
      releases.rollback(NS, "app", 1);
      releases.uninstall(NS, "app", UninstallOptions.defaults());
      logs.lines().forEach(l -> seen.add(l.text()));
    }
    for (SpanData span : exporter.getFinishedSpanItems()) {
      seen.add(span.getName());
      seen.add(span.getStatus().getDescription());
      span.getAttributes().forEach((k, v) -> seen.add(k.getKey() + "=" + v));
      span.getEvents()
          .forEach(
              e -> {
                seen.add(e.getName());
                e.getAttributes().forEach((k, v) -> seen.add(k.getKey() + "=" + v));
              });
    }

    assertThat(exporter.getFinishedSpanItems())
        .extracting(SpanData::getName)
        .contains("capstan cast", "capstan plan", "capstan rollback", "capstan uninstall");
    String base64 = Base64.getEncoder().encodeToString(marker.getBytes(StandardCharsets.UTF_8));
    assertThat(String.join("\n", seen))
        .contains("Secret/default/creds")
        .doesNotContain(marker)
        .doesNotContain(base64);
  }
}
