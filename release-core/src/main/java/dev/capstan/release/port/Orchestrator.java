package dev.capstan.release.port;

import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceType;
import java.time.Duration;
import java.util.List;

/**
 * Runs services: the {@link ResourceType#SERVICE} objects of a release. Implementations: {@code
 * InMemoryCluster} for tests, {@code KubernetesOrchestrator} (Deployments and Services).
 */
public interface Orchestrator extends ResourcePort {

  /**
   * Waits until every service in {@code services} is ready, failing fast when one cannot become
   * ready (crash loop, image pull error, unschedulable, quota) with the reason.
   *
   * @param services the services to wait for; may be empty
   * @param timeout how long to wait in all
   * @return {@link Readiness.Ready}, or why not
   */
  Readiness awaitReady(List<ResourceRef> services, Duration timeout);
}
