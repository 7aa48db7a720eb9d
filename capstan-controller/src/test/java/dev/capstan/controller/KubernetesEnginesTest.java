package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.capstan.k8s.KubeClients;
import dev.capstan.release.chart.ChartReference;
import dev.capstan.release.chart.ChartRequest;
import dev.capstan.release.chart.ClusterAccess;
import dev.capstan.release.chart.RenderLimits;
import dev.capstan.release.chart.RenderedChart;
import dev.capstan.release.codec.RecordLimits;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KubernetesEngines}' chart renderers on a stand-in API server: the chart of a Release cast
 * as a service account looks up as that account, through the lookup proxy; the chart of a Release
 * cast with the controller's own rights looks nothing up. The renderer stands in for Helm: with
 * cluster access, it lists kube-system's Secrets through the kubeconfig it was given, as a
 * template's {@code lookup "v1" "Secret" "kube-system" ""} would.
 */
class KubernetesEnginesTest {
  private static final String VERSION =
      "{\"major\":\"1\",\"minor\":\"37\",\"gitVersion\":\"v1.37.2\",\"gitCommit\":\"0\","
          + "\"gitTreeState\":\"clean\",\"buildDate\":\"2026-01-01T00:00:00Z\","
          + "\"goVersion\":\"go1.25\",\"compiler\":\"gc\",\"platform\":\"linux/amd64\"}";
  private static final String NO_GROUPS =
      "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/v2\",\"items\":[]}";
  private static final String SECRETS =
      "{\"kind\":\"SecretList\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[{\"metadata\":"
          + "{\"name\":\"admin\",\"namespace\":\"kube-system\"},\"data\":{\"token\":\"c2VjcmV0\"}}]}";

  private final List<String> served = new CopyOnWriteArrayList<>();
  private final List<ChartRequest> rendered = new CopyOnWriteArrayList<>();
  private final List<RenderLimits> limited = new CopyOnWriteArrayList<>();
  private final List<String> lookedUp = new CopyOnWriteArrayList<>();
  private HttpServer api;
  private KubernetesEngines engines;

  @BeforeEach
  void anApiServer() throws IOException {
    api =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
    api.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          served.add(path + " as " + exchange.getRequestHeaders().getFirst("Impersonate-User"));
          byte[] body =
              (switch (path) {
                    case "/version/" -> VERSION;
                    case "/api", "/apis" -> NO_GROUPS;
                    default -> SECRETS;
                  })
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    api.start();
    ApiClient controller =
        new ApiClient().setBasePath("http://127.0.0.1:" + api.getAddress().getPort());
    controller.setApiKeyPrefix("Bearer");
    controller.setApiKey("controller-token");
    engines =
        new KubernetesEngines(
            KubeClients.fromApiClient(controller, "test"),
            "test",
            b -> {},
            this::helm,
            RecordLimits.DEFAULT);
  }

  @AfterEach
  void stop() {
    engines.close();
    api.stop(0);
  }

  /**
   * Records the request and its limits and, given cluster access, looks every Secret of kube-system
   * up.
   */
  private RenderedChart helm(ChartRequest request, RenderLimits limits) {
    rendered.add(request);
    limited.add(limits);
    ClusterAccess cluster = request.cluster();
    if (cluster != null) {
      try {
        String kubeconfig = Files.readString(Path.of(cluster.kubeconfigs().get(0)));
        String server = kubeconfig.replaceAll("(?s).*server: \"([^\"]+)\".*", "$1");
        HttpResponse<String> found =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(
                            URI.create(server + "/api/v1/namespaces/kube-system/secrets"))
                        .header("Accept", "application/json")
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        lookedUp.add(found.statusCode() + " " + found.body());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return new RenderedChart(
        "", "web", "0.1.0", null, "sha256:" + "0".repeat(64), Map.of(), "helm v3.22.0", List.of());
  }

  private static ChartRequest chart() {
    return ChartRequest.of(
        new ChartReference.Repository("https://charts.example.com", "web"), "shop", "web");
  }

  @Test
  void aReleaseCastWithTheControllersOwnRightsLooksNothingUp() {
    engines.of(null, 10).charts().render(chart());

    ChartRequest request = rendered.get(0);
    assertThat(request.cluster()).isNull(); // no kubeconfig: Helm's lookup finds nothing
    assertThat(request.capabilities()).isNotNull();
    assertThat(request.capabilities().kubeVersion()).isEqualTo("v1.37.2");
    assertThat(lookedUp).isEmpty();
    assertThat(served).containsExactly("/version/ as null", "/api as null", "/apis as null");
  }

  @Test
  void aReleasesServiceAccountLooksUpAsItselfThroughTheProxyAndHelmHoldsNoCredential() {
    engines.of(new Tenancy.Account("shop", "deployer"), 10).charts().render(chart());

    ClusterAccess cluster = rendered.get(0).cluster();
    assertThat(cluster).isNotNull();
    assertThat(cluster.asUser()).isNull(); // the proxy impersonates, not Helm
    assertThat(cluster.environment()).isEmpty();
    assertThat(lookedUp).containsExactly("200 " + SECRETS);
    String as = " as system:serviceaccount:shop:deployer";
    assertThat(served)
        .containsExactly(
            "/version/" + as,
            "/api" + as,
            "/apis" + as,
            "/api/v1/namespaces/kube-system/secrets" + as);
    assertThat(Path.of(cluster.kubeconfigs().get(0))).doesNotExist(); // deleted after rendering
  }

  @Test
  void theRenderersOfBothRightsPassTheCallersLimitsOnToHelm() {
    RenderLimits share = new RenderLimits(9L << 20, 147_456);

    engines.of(null, 10).charts().render(chart(), share);
    engines.of(new Tenancy.Account("shop", "deployer"), 10).charts().render(chart(), share);
    engines.of(null, 10).charts().render(chart());

    assertThat(limited).containsExactly(share, share, RenderLimits.DEFAULT);
  }
}
