package dev.capstan.spring.boot;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.k8s.LeaseHolders;
import dev.capstan.micrometer.ReleaseMetrics;
import dev.capstan.opentelemetry.ReleaseTracing;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.ReleaseControllerBuilder;
import dev.capstan.release.event.ReleaseListener;
import dev.capstan.release.port.Orchestrator;
import dev.capstan.release.port.Store;
import io.kubernetes.client.openapi.ApiClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Path;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Capstan in a Spring Boot 3.5 or 4.0 application: a {@link ReleaseController} bean, ready to
 * inject.
 *
 * <ul>
 *   <li>{@link KubeClients} from the application's {@code ApiClient} bean when it has one (Spring
 *       Cloud Kubernetes makes one), else from the kubeconfig file {@code
 *       capstan.kubernetes.kubeconfig} (and {@code capstan.kubernetes.context}), else from the
 *       pod's service account when the application runs in one;
 *   <li>a {@link KubernetesOrchestrator} and a {@link KubernetesStore} on it, unless the
 *       application defines an {@link Orchestrator} or a {@link Store} bean of its own (a {@code
 *       JdbcStore} for records in its database, an {@code InMemoryCluster} for tests);
 *   <li>the {@link ReleaseController} over them, configured by {@code capstan.release.*}, with
 *       every {@link ReleaseListener} bean of the application as a listener, and Micrometer metrics
 *       ({@code capstan-micrometer}) and OpenTelemetry traces ({@code capstan-opentelemetry}) when
 *       those modules are on the class path and the application has a {@code MeterRegistry} or an
 *       {@code OpenTelemetry} bean;
 *   <li>the health indicator {@code capstan} of the Kubernetes connection, with Spring Boot
 *       Actuator ({@code management.health.capstan.enabled=false} turns it off).
 * </ul>
 *
 * <p>Every bean backs off when the application defines one of its type.
 */
@AutoConfiguration(
    afterName = "org.springframework.cloud.kubernetes.client.KubernetesClientAutoConfiguration")
@ConditionalOnClass(ReleaseController.class)
@EnableConfigurationProperties(CapstanProperties.class)
public class CapstanAutoConfiguration {
  /** Made by Spring. */
  public CapstanAutoConfiguration() {}

  /**
   * The release controller over the application's (or the Kubernetes) orchestrator and store.
   *
   * @throws IllegalStateException when there is no orchestrator or store: no Kubernetes connection
   *     is configured and the application defines neither, naming what to configure
   */
  @Bean
  @ConditionalOnMissingBean
  public ReleaseController releaseController(
      ObjectProvider<Orchestrator> orchestrator,
      ObjectProvider<Store> store,
      ObjectProvider<ReleaseListener> listeners,
      CapstanProperties properties) {
    Orchestrator o = orchestrator.getIfUnique();
    Store s = store.getIfUnique();
    if (o == null || s == null) {
      throw new IllegalStateException(
          "Capstan has no "
              + (o == null ? "Orchestrator" : "Store")
              + " to cast with: define an io.kubernetes.client.openapi.ApiClient bean, or set"
              + " capstan.kubernetes.kubeconfig to a kubeconfig file, or run the application in a"
              + " pod; or define Orchestrator and Store beans of your own");
    }
    ReleaseControllerBuilder builder = ReleaseController.builder(o, s);
    CapstanProperties.Release release = properties.release();
    if (release.parallelism() != null) {
      builder.parallelism(release.parallelism());
    }
    if (release.maxHistory() != null) {
      builder.maxHistory(release.maxHistory());
    }
    if (release.waitForLease() != null) {
      builder.waitForLease(release.waitForLease());
    }
    if (release.leaseDuration() != null) {
      builder.leaseDuration(release.leaseDuration());
    }
    if (release.holder() != null) {
      builder.holder(release.holder());
    } else {
      builder.holder(LeaseHolders.onThisHost());
    }
    listeners.orderedStream().forEach(builder::listener);
    return builder.build();
  }

  /** The Kubernetes adapters, when the application names a connection. */
  @Configuration(proxyBeanMethods = false)
  @Conditional(KubernetesConnection.class)
  static class Kubernetes {
    /**
     * The clients: the application's {@code ApiClient}, else the kubeconfig named, else the pod's
     * service account.
     */
    @Bean
    @ConditionalOnMissingBean
    KubeClients capstanKubeClients(
        ObjectProvider<ApiClient> apiClient, CapstanProperties properties) {
      CapstanProperties.Kubernetes kubernetes = properties.kubernetes();
      ApiClient client = apiClient.getIfUnique();
      if (client != null) {
        String context = kubernetes.context();
        return KubeClients.fromApiClient(client, context == null ? "application" : context);
      }
      Path kubeconfig = kubernetes.kubeconfig();
      if (kubeconfig != null) {
        return KubeClients.fromKubeconfig(kubeconfig, kubernetes.context());
      }
      return KubeClients.inCluster();
    }

    @Bean
    @ConditionalOnMissingBean(Orchestrator.class)
    KubernetesOrchestrator capstanOrchestrator(KubeClients kube) {
      return new KubernetesOrchestrator(kube);
    }

    @Bean
    @ConditionalOnMissingBean(Store.class)
    KubernetesStore capstanStore(KubeClients kube) {
      return new KubernetesStore(kube);
    }

    /** The health indicator on Spring Boot 3 (Actuator's health API). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @ConditionalOnProperty(
        prefix = "management.health.capstan",
        name = "enabled",
        matchIfMissing = true)
    static class Boot3Health {
      @Bean
      @ConditionalOnMissingBean(name = "capstanHealthIndicator")
      KubernetesHealthIndicator capstanHealthIndicator(KubeClients kube) {
        return new KubernetesHealthIndicator(kube);
      }
    }

    /** The health indicator on Spring Boot 4 (its health API in spring-boot-health). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnProperty(
        prefix = "management.health.capstan",
        name = "enabled",
        matchIfMissing = true)
    static class Boot4Health {
      @Bean
      @ConditionalOnMissingBean(name = "capstanHealthIndicator")
      KubernetesHealthContributor capstanHealthIndicator(KubeClients kube) {
        return new KubernetesHealthContributor(kube);
      }
    }
  }

  /** Micrometer meters of every release operation, when the application records meters. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({ReleaseMetrics.class, MeterRegistry.class})
  @ConditionalOnProperty(prefix = "capstan.metrics", name = "enabled", matchIfMissing = true)
  static class Metrics {
    /**
     * {@code ReleaseMetrics} on the application's registry, or nothing (a listener that ignores
     * every event) when it has none.
     */
    @Bean
    ReleaseListener capstanReleaseMetrics(
        ObjectProvider<MeterRegistry> registry, CapstanProperties properties) {
      MeterRegistry meters = registry.getIfUnique();
      if (meters == null) {
        return event -> {};
      }
      ReleaseMetrics metrics = ReleaseMetrics.of(meters);
      return properties.metrics().releaseTags() ? metrics.withReleaseTags() : metrics;
    }
  }

  /** OpenTelemetry spans of every release operation, when the application traces. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({ReleaseTracing.class, OpenTelemetry.class})
  @ConditionalOnProperty(prefix = "capstan.tracing", name = "enabled", matchIfMissing = true)
  static class Tracing {
    /**
     * {@code ReleaseTracing} on the application's OpenTelemetry, or nothing (a listener that
     * ignores every event) when it has none.
     */
    @Bean
    ReleaseListener capstanReleaseTracing(ObjectProvider<OpenTelemetry> openTelemetry) {
      OpenTelemetry otel = openTelemetry.getIfUnique();
      return otel == null ? event -> {} : ReleaseTracing.of(otel);
    }
  }
}
