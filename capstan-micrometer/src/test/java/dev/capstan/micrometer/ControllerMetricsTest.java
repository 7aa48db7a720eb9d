package dev.capstan.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.controller.ControllerObserver;
import dev.capstan.controller.ReleaseKey;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The controller's meters as the Prometheus text of {@code /metrics} shows them: reconciles by
 * reason and result, failures by reason, the queue's depth and the Releases by condition, read when
 * scraped.
 */
class ControllerMetricsTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicInteger depth = new AtomicInteger(3);
  private final AtomicInteger ready = new AtomicInteger(2);

  private static ControllerObserver.State view(AtomicInteger depth, AtomicInteger ready) {
    return new ControllerObserver.State() {
      @Override
      public int queueDepth() {
        return depth.get();
      }

      @Override
      public List<ControllerObserver.ConditionCount> releasesByCondition() {
        return List.of(
            new ControllerObserver.ConditionCount("Ready", "True", ready.get()),
            new ControllerObserver.ConditionCount("Ready", "False", 1),
            new ControllerObserver.ConditionCount("Suspended", "True", 0));
      }
    };
  }

  private static ControllerObserver.Reconcile reconcile(@Nullable String ready, String reason) {
    return new ControllerObserver.Reconcile(
        new ReleaseKey("shop", "web"), Duration.ofMillis(250), ready, reason);
  }

  @Test
  void reconcilesFailuresTheQueueAndTheReleasesByConditionAreScraped() {
    ControllerMetrics metrics = ControllerMetrics.of(registry);
    metrics.started(view(depth, ready));
    System.gc(); // the view is kept by the gauges alone, as the controller's is
    metrics.reconciled(reconcile("True", "Cast"));
    metrics.reconciled(reconcile("False", "CastFailed"));
    metrics.reconciled(reconcile("False", "CastFailed"));
    metrics.reconciled(reconcile(null, ControllerObserver.ERROR));
    depth.set(5);
    ready.set(7);

    List<String> lines =
        registry.scrape().lines().filter(l -> !l.startsWith("#")).sorted().toList();

    assertThat(lines)
        .contains(
            "capstan_controller_failures_total{reason=\"CastFailed\"} 2.0",
            "capstan_controller_failures_total{reason=\"Error\"} 1.0",
            "capstan_controller_queue_depth 5.0",
            "capstan_controller_reconcile_seconds_count{reason=\"Cast\",result=\"success\"} 1",
            "capstan_controller_reconcile_seconds_count{reason=\"CastFailed\",result=\"failure\"} 2",
            "capstan_controller_reconcile_seconds_count{reason=\"Error\",result=\"failure\"} 1",
            "capstan_controller_reconcile_seconds_sum{reason=\"CastFailed\",result=\"failure\"} 0.5",
            "capstan_controller_releases{condition=\"Ready\",status=\"False\"} 1.0",
            "capstan_controller_releases{condition=\"Ready\",status=\"True\"} 7.0",
            "capstan_controller_releases{condition=\"Suspended\",status=\"True\"} 0.0");
    assertThat(lines).noneMatch(l -> l.contains("shop") || l.contains("web"));
  }
}
