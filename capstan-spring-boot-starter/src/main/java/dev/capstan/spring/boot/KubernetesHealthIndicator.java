package dev.capstan.spring.boot;

import dev.capstan.k8s.KubeClients;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The health of Capstan's Kubernetes connection on Spring Boot 3 (component {@code capstan}): UP
 * with the API server's version when it answers {@code GET /version}, DOWN with the error when it
 * does not.
 */
// its health API is an optional dependency (module-info): the application has it
@SuppressWarnings("exports")
public final class KubernetesHealthIndicator implements HealthIndicator {
  private final KubeClients kube;

  /** The health of {@code kube}'s connection. */
  public KubernetesHealthIndicator(KubeClients kube) {
    this.kube = kube;
  }

  @Override
  public Health health() {
    KubernetesCheck check = KubernetesCheck.of(kube);
    return (check.up() ? Health.up() : Health.down()).withDetails(check.details()).build();
  }
}
