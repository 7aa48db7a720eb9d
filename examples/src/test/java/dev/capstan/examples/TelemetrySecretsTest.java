package dev.capstan.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.logging.LogCapture;
import dev.capstan.micrometer.ReleaseMetrics;
import dev.capstan.opentelemetry.ReleaseTracing;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.test.CapstanTest;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A host's controller with the log, metrics and traces of docs/observability.md ("Logs, metrics and
 * traces") at once, driven through every release operation with a Secret: its value reaches no log
 * line, meter or span.
 */
@CapstanTest
class TelemetrySecretsTest {
  private static final String MARKER = "marker-9d41aa-NOT-FOR-TELEMETRY";

  private static Payloads shop(String password) {
    return Payloads.of(
        ServiceSpec.builder("shop", "web").image("acme/web:1.0").envFromSecret("db").build(),
        SecretSpec.of("shop", "db", Map.of("password", password)));
  }

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void noSecretValueReachesALogLineAMeterNameOrTagOrASpan(InMemoryCluster cluster) {
    cluster.addNamespace("shop");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    List<String> seen = new ArrayList<>();
    try (OpenTelemetrySdk openTelemetry =
            OpenTelemetrySdk.builder()
                .setTracerProvider(
                    SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .build();
        LogCapture logs = LogCapture.open()) {
      ReleaseController releases =
          ReleaseController.builder(cluster, cluster)
              .listener(ReleaseMetrics.of(meters).withReleaseTags())
              .listener(ReleaseTracing.of(openTelemetry))
              .build();
      Payloads first = shop(MARKER);
      Payloads changed = shop(MARKER + "-2");

      releases.cast(ReleaseSpec.of("shop", "web", first), first);
      cluster.faults().failOn(Operation.APPLY, "Secret/shop/db");
      assertThatThrownBy(() -> releases.cast(ReleaseSpec.of("shop", "web", changed), changed))
          .isInstanceOf(CastFailedException.class);
      cluster.faults().clear();
      releases.plan(ReleaseSpec.of("shop", "web", changed), changed);
      releases.planRollback("shop", "web", 1);
      releases.rollback("shop", "web", 1);
      releases.uninstall("shop", "web", UninstallOptions.defaults());

      logs.lines().forEach(line -> seen.add(line.toString()));
      for (Meter meter : meters.getMeters()) {
        seen.add(meter.getId().getName());
        for (Tag tag : meter.getId().getTags()) {
          seen.add(tag.getKey() + "=" + tag.getValue());
        }
      }
      // inside: closing the SDK shuts the exporter down, which forgets its spans
      for (SpanData span : spans.getFinishedSpanItems()) {
        seen.add(span.getName() + " " + span.getStatus().getDescription());
        span.getAttributes().forEach((k, v) -> seen.add(k.getKey() + "=" + v));
        span.getEvents()
            .forEach(
                e -> {
                  seen.add(e.getName());
                  e.getAttributes().forEach((k, v) -> seen.add(k.getKey() + "=" + v));
                });
      }

      assertThat(spans.getFinishedSpanItems())
          .extracting(SpanData::getName)
          .contains("capstan cast", "capstan plan", "capstan rollback", "capstan uninstall");
      assertThat(meters.get(ReleaseMetrics.OPERATION).tags("outcome", "failed").timer().count())
          .isEqualTo(1);
    }
    String all = String.join("\n", seen);
    assertThat(all)
        .contains("Secret/shop/db")
        .contains("INFO dev.capstan.release.ReleaseController: shop/web: cast finished in")
        .doesNotContain("marker-9d41aa")
        .doesNotContain(base64(MARKER))
        .doesNotContain(base64(MARKER + "-2"));
  }
}
