package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The endpoints on loopback: what each path answers, and to which methods. */
class ControllerEndpointsTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> send(ControllerEndpoints e, String method, String path)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + e.address().getPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private static InetSocketAddress loopback() throws Exception {
    return new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0);
  }

  @Test
  void healthReadinessAndMetricsAnswerAsTheControllerIs() throws Exception {
    AtomicBoolean live = new AtomicBoolean(true);
    AtomicBoolean ready = new AtomicBoolean(false);
    try (ControllerEndpoints e =
        new ControllerEndpoints(loopback(), live::get, ready::get, () -> "capstan_up 1\n")) {
      assertThat(send(e, "GET", "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> notReady = send(e, "GET", "/readyz");
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).isEqualTo("not ready\n");

      ready.set(true);
      live.set(false);
      assertThat(send(e, "GET", "/readyz").statusCode()).isEqualTo(200);
      assertThat(send(e, "GET", "/healthz").statusCode()).isEqualTo(503);
      HttpResponse<String> metrics = send(e, "GET", "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).isEqualTo("capstan_up 1\n");
      assertThat(metrics.headers().firstValue("Content-Type"))
          .contains(ControllerEndpoints.PROMETHEUS_TEXT);
      assertThat(send(e, "HEAD", "/metrics").body()).isEmpty();
      HttpResponse<String> post = send(e, "POST", "/healthz");
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
      assertThat(send(e, "GET", "/other").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void withoutMetricsTheMetricsPathIsNotFoundAndAFailingScrapeIsA500() throws Exception {
    try (ControllerEndpoints none =
            new ControllerEndpoints(loopback(), () -> true, () -> true, null);
        ControllerEndpoints failing =
            new ControllerEndpoints(
                loopback(),
                () -> true,
                () -> true,
                () -> {
                  throw new IllegalStateException("registry closed");
                })) {
      assertThat(send(none, "GET", "/metrics").statusCode()).isEqualTo(404);
      HttpResponse<String> broken = send(failing, "GET", "/metrics");
      assertThat(broken.statusCode()).isEqualTo(500);
      assertThat(broken.body()).isEqualTo("the metrics could not be read\n");
    }
  }
}
