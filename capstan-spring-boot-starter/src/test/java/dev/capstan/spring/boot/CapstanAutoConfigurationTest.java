package dev.capstan.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.micrometer.ReleaseMetrics;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.port.Store;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What the auto-configuration makes of an application, bean by bean. */
class CapstanAutoConfigurationTest {
  private final ApplicationContextRunner app =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(CapstanAutoConfiguration.class));

  /** An application that keeps its releases in memory (as its tests would). */
  @Configuration(proxyBeanMethods = false)
  static class InMemory {
    @Bean
    InMemoryCluster cluster() {
      return InMemoryCluster.create().addNamespace("shop");
    }
  }

  /** An application with meters, traces and a listener of its own. */
  @Configuration(proxyBeanMethods = false)
  static class Observed {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean
    InMemorySpanExporter spans() {
      return spans;
    }

    @Bean
    OpenTelemetry openTelemetry() {
      return OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .build();
    }

    @Bean
    Heard heard() {
      return new Heard();
    }
  }

  /** A listener bean of the application. */
  static final class Heard implements ReleaseListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void on(ReleaseEvent event) {
      events.add(event.getClass().getSimpleName());
    }
  }

  /** An application with an ApiClient of its own, on a port where nothing listens. */
  @Configuration(proxyBeanMethods = false)
  static class Unreachable {
    @Bean
    ApiClient apiClient() throws IOException {
      int port;
      try (ServerSocket socket =
          new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = socket.getLocalPort();
      }
      return new ApiClient().setBasePath("https://127.0.0.1:" + port);
    }
  }

  private static void cast(ReleaseController releases, String level) {
    releases.cast(
        ReleaseInput.of(
            "shop", "web", Payloads.of(ConfigMapSpec.of("shop", "web", Map.of("level", level)))));
  }

  @Test
  void theControllerCastsOnTheApplicationsPortsWithItsListenersMetricsAndTraces() {
    app.withUserConfiguration(InMemory.class, Observed.class)
        .withPropertyValues("capstan.release.max-history=2")
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(KubeClients.class);
              ReleaseController releases = context.getBean(ReleaseController.class);

              cast(releases, "1");
              cast(releases, "2");
              cast(releases, "3");

              assertThat(releases.history("shop", "web")).hasSize(2);
              assertThat(context.getBean(Heard.class).events)
                  .startsWith("OperationStarted")
                  .contains("Finished");
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .get(ReleaseMetrics.OPERATION)
                          .tags("operation", "cast", "outcome", "succeeded")
                          .timer()
                          .count())
                  .isEqualTo(3);
              List<SpanData> spans =
                  context.getBean(InMemorySpanExporter.class).getFinishedSpanItems();
              assertThat(spans)
                  .filteredOn(s -> s.getName().equals("capstan cast"))
                  .hasSize(3)
                  .allSatisfy(
                      s ->
                          assertThat(
                                  s.getAttributes()
                                      .get(AttributeKey.stringKey("k8s.namespace.name")))
                              .isEqualTo("shop"));
            });
  }

  @Test
  void metricsTracingAndReleaseTagsFollowTheirProperties() {
    app.withUserConfiguration(InMemory.class, Observed.class)
        .withPropertyValues("capstan.tracing.enabled=false", "capstan.metrics.release-tags=true")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean("capstanReleaseTracing");
              cast(context.getBean(ReleaseController.class), "1");

              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .get(ReleaseMetrics.OPERATION)
                          .tags("namespace", "shop", "release", "web")
                          .timer()
                          .count())
                  .isEqualTo(1);
              assertThat(context.getBean(InMemorySpanExporter.class).getFinishedSpanItems())
                  .isEmpty();
            });
    app.withUserConfiguration(InMemory.class)
        .withPropertyValues("capstan.metrics.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("capstanReleaseMetrics"));
  }

  @Test
  void anApplicationsApiClientIsTheConnectionAndItsHealthIsDownWhenNothingAnswers() {
    app.withUserConfiguration(Unreachable.class)
        .withPropertyValues("capstan.kubernetes.context=staging")
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(ReleaseController.class)
                  .hasSingleBean(KubernetesOrchestrator.class)
                  .hasSingleBean(KubernetesStore.class);
              KubeClients kube = context.getBean(KubeClients.class);
              assertThat(kube.apiClient()).isSameAs(context.getBean(ApiClient.class));
              assertThat(kube.context()).isEqualTo("staging");

              var health =
                  context.getBean("capstanHealthIndicator", HealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails())
                  .containsEntry("context", "staging")
                  .containsEntry("server", kube.server())
                  .containsKey("error")
                  .doesNotContainKey("version");
              assertThat(kube.requests().counts())
                  .containsExactly(java.util.Map.entry("GET /version/", 1L));
            });
    app.withUserConfiguration(Unreachable.class)
        .withPropertyValues("management.health.capstan.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("capstanHealthIndicator"));
  }

  @Test
  void anApplicationsOwnStoreIsKeptBesideTheKubernetesOrchestrator() {
    InMemoryCluster records = InMemoryCluster.create();
    // only a Store (an InMemoryCluster is an Orchestrator too), as a JdbcStore is
    Store store =
        (Store)
            Proxy.newProxyInstance(
                Store.class.getClassLoader(),
                new Class<?>[] {Store.class},
                (proxy, method, args) -> method.invoke(records, args));
    app.withUserConfiguration(Unreachable.class)
        .withBean("records", Store.class, () -> store)
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .hasSingleBean(KubernetesOrchestrator.class)
                  .doesNotHaveBean(KubernetesStore.class)
                  .hasSingleBean(ReleaseController.class);
              assertThat(context.getBean(ReleaseController.class).list("shop", true)).isEmpty();
            });
  }

  @Test
  void withoutAConnectionOrPortsTheApplicationFailsToStartSayingWhatToConfigure() {
    app.run(
        context ->
            assertThat(context)
                .hasFailed()
                .getFailure()
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                    "Capstan has no Orchestrator to cast with: define an"
                        + " io.kubernetes.client.openapi.ApiClient bean, or set"
                        + " capstan.kubernetes.kubeconfig to a kubeconfig file, or run the"
                        + " application in a pod; or define Orchestrator and Store beans of your"
                        + " own"));
  }

  @Test
  void aKubeconfigThatCannotBeReadFailsTheStartNamingIt() {
    app.withPropertyValues("capstan.kubernetes.kubeconfig=/nonexistent/kubeconfig")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasMessageContaining(
                      "Factory method 'capstanKubeClients' threw exception with message:"
                          + " cannot read kubeconfig /nonexistent/kubeconfig")
                  .rootCause()
                  .isInstanceOf(java.nio.file.NoSuchFileException.class);
            });
  }

  @Test
  void invalidPropertiesAreRefusedNamingThePropertyAndTheValue() {
    app.withUserConfiguration(InMemory.class)
        .withPropertyValues("capstan.release.parallelism=0")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessage("capstan.release.parallelism must be at least 1: 0"));
    app.withUserConfiguration(InMemory.class)
        .withPropertyValues("capstan.release.lease-duration=500ms")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessage(
                        "capstan.release.lease-duration must be at least 1 second: PT0.5S"));
  }
}
