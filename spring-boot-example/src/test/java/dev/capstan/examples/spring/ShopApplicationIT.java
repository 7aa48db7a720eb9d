package dev.capstan.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The example application on a real Kubernetes control plane, as it would start in production: its
 * kubeconfig named by {@code capstan.kubernetes.kubeconfig}, the web server on 127.0.0.1. It plans
 * and casts the shop; the Actuator shows the connection's health and the cast's metrics. Built and
 * run once on Spring Boot 3.5 and once on 4.0 (boot-3.5, boot-4.0).
 */
@ControlPlaneTest
class ShopApplicationIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  private JsonNode get(ConfigurableApplicationContext app, String path) throws Exception {
    String port = app.getEnvironment().getRequiredProperty("local.server.port");
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  @Test
  void theApplicationCastsTheShopAndShowsItsHealthAndMetrics(ControlPlane plane, TestNamespace ns)
      throws Exception {
    try (ConfigurableApplicationContext app =
        SpringApplication.run(
            ShopApplication.class,
            "--capstan.kubernetes.kubeconfig=" + plane.kubeconfig(),
            "--shop.namespace=" + ns.name(),
            "--server.address=127.0.0.1",
            "--server.port=0")) {
      ShopReleases shop = app.getBean(ShopReleases.class);

      String planned = PlanRenderer.text(shop.plan("1.0.0"));
      CastResult deployed = shop.deploy("1.0.0");

      assertThat(planned).contains("+ create").contains("apps/Deployment/" + ns.name() + "/web");
      assertThat(deployed.release().revision()).isEqualTo(1);
      assertThat(deployed.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
      assertThat(deployed.release().version()).isEqualTo("1.0.0");
      V1Deployment web =
          new AppsV1Api(plane.client()).readNamespacedDeployment("web", ns.name()).execute();
      assertThat(web.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
          .isEqualTo("ghcr.io/acme/shop-web:1.0.0");
      assertThat(
              new CoreV1Api(plane.client())
                  .readNamespacedConfigMap("web-settings", ns.name())
                  .execute()
                  .getData())
          .containsEntry("greeting", "hello");
      assertThat(shop.deploy("1.0.0").plan().changesNothing()).isTrue();

      JsonNode health = get(app, "/actuator/health");
      assertThat(health.path("status").asText()).isEqualTo("UP");
      JsonNode capstan = health.path("components").path("capstan");
      assertThat(capstan.path("status").asText()).isEqualTo("UP");
      assertThat(capstan.path("details").path("version").asText()).isEqualTo(plane.serverVersion());
      assertThat(capstan.path("details").path("server").asText()).startsWith("https://127.0.0.1:");

      JsonNode casts = get(app, "/actuator/metrics/capstan.release.operation?tag=operation:cast");
      assertThat(casts.path("measurements").get(0).path("statistic").asText()).isEqualTo("COUNT");
      assertThat(casts.path("measurements").get(0).path("value").asDouble()).isEqualTo(2.0);
    }
  }
}
