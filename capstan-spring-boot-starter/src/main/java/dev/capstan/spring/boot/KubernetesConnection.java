package dev.capstan.spring.boot;

import io.kubernetes.client.openapi.ApiClient;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnCloudPlatform;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.cloud.CloudPlatform;

/**
 * Whether the application names a Kubernetes connection: an {@link ApiClient} bean, the property
 * {@code capstan.kubernetes.kubeconfig}, or a pod to run in (its service account).
 */
final class KubernetesConnection extends AnyNestedCondition {
  KubernetesConnection() {
    super(ConfigurationPhase.REGISTER_BEAN);
  }

  @ConditionalOnBean(ApiClient.class)
  static final class ApplicationClient {}

  @ConditionalOnProperty(prefix = "capstan.kubernetes", name = "kubeconfig")
  static final class Kubeconfig {}

  @ConditionalOnCloudPlatform(CloudPlatform.KUBERNETES)
  static final class InAPod {}
}
