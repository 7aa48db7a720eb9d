package dev.capstan.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code capstan.*} properties of a Spring Boot application. Every one is optional; what is not
 * set keeps the library's default ({@code ReleaseControllerBuilder}'s, named below).
 *
 * @param kubernetes how Capstan reaches Kubernetes when the application has no {@code ApiClient}
 *     bean of its own
 * @param release how the {@code ReleaseController} casts
 * @param metrics the Micrometer meters, when the application has a {@code MeterRegistry}
 * @param tracing the OpenTelemetry spans, when the application has an {@code OpenTelemetry} bean
 */
@ConfigurationProperties("capstan")
public record CapstanProperties(
    @DefaultValue Kubernetes kubernetes,
    @DefaultValue Release release,
    @DefaultValue Metrics metrics,
    @DefaultValue Tracing tracing) {

  /** Requires every group (Spring Boot gives each its defaults). */
  public CapstanProperties {
    java.util.Objects.requireNonNull(kubernetes, "kubernetes");
    java.util.Objects.requireNonNull(release, "release");
    java.util.Objects.requireNonNull(metrics, "metrics");
    java.util.Objects.requireNonNull(tracing, "tracing");
  }

  /**
   * The Kubernetes connection, used when the application defines no {@code
   * io.kubernetes.client.openapi.ApiClient} bean: a kubeconfig file, else the pod's service account
   * when the application runs in one.
   *
   * @param kubeconfig the kubeconfig file Capstan connects with when the application defines no
   *     ApiClient bean
   * @param context the context of the kubeconfig file to use (default: its current context); with
   *     an ApiClient bean, the name its connection is shown under
   */
  public record Kubernetes(@Nullable Path kubeconfig, @Nullable String context) {
    /** Refuses an empty context name. */
    public Kubernetes {
      if (context != null && context.isBlank()) {
        throw new IllegalArgumentException(
            "capstan.kubernetes.context must name a context of the kubeconfig, or be left out for"
                + " its current one: it is blank");
      }
    }
  }

  /**
   * How the {@code ReleaseController} casts.
   *
   * @param parallelism how many objects of one kind a cast writes at once, at least 1 (default 4)
   * @param maxHistory how many revisions of each release are kept, at least 1 (default 10)
   * @param waitForLease how long an operation queues behind another holder of the release's lease
   *     before it gives up (default 0: at once)
   * @param leaseDuration how long a release's operation lease lasts without renewal, at least 1
   *     second (default 15 seconds)
   * @param holder the name of this application as a lease holder, which others see (default: the
   *     host, the process and a random part)
   */
  public record Release(
      @Nullable Integer parallelism,
      @Nullable Integer maxHistory,
      @Nullable Duration waitForLease,
      @Nullable Duration leaseDuration,
      @Nullable String holder) {
    /** Refuses values the controller cannot run with, naming the property. */
    public Release {
      atLeastOne("capstan.release.parallelism", parallelism);
      atLeastOne("capstan.release.max-history", maxHistory);
      if (waitForLease != null && waitForLease.isNegative()) {
        throw new IllegalArgumentException(
            "capstan.release.wait-for-lease must not be negative: " + waitForLease);
      }
      if (leaseDuration != null && leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "capstan.release.lease-duration must be at least 1 second: " + leaseDuration);
      }
      if (holder != null && holder.isBlank()) {
        throw new IllegalArgumentException(
            "capstan.release.holder must not be blank; leave it out to name this host");
      }
    }

    private static void atLeastOne(String property, @Nullable Integer value) {
      if (value != null && value < 1) {
        throw new IllegalArgumentException(property + " must be at least 1: " + value);
      }
    }
  }

  /**
   * The Micrometer meters of {@code capstan-micrometer}'s {@code ReleaseMetrics}.
   *
   * @param enabled whether release operations are measured on the application's MeterRegistry, when
   *     it has one (default true)
   * @param releaseTags whether every release meter is tagged with the release's namespace and name:
   *     one time series per release, for applications with few releases (default false)
   */
  public record Metrics(@DefaultValue("true") boolean enabled, boolean releaseTags) {}

  /**
   * The OpenTelemetry spans of {@code capstan-opentelemetry}'s {@code ReleaseTracing}.
   *
   * @param enabled whether release operations are traced on the application's OpenTelemetry, when
   *     it has one (default true)
   */
  public record Tracing(@DefaultValue("true") boolean enabled) {}
}
