package dev.capstan.update.build.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.capstan.update.ImageBuildException;
import dev.capstan.update.version.ImageRef;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The OCI distribution API probe against a small HTTP server on 127.0.0.1. */
class OciImageRegistryTest {
  private HttpServer server;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final OciImageRegistry registry =
      new OciImageRegistry(HttpClient.newHttpClient(), Duration.ofSeconds(5));

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/v2/",
        exchange -> {
          requests.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Accept"));
          String path = exchange.getRequestURI().getPath();
          int status = path.endsWith("/manifests/v1") ? 200 : path.contains("/broken/") ? 503 : 404;
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String host() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  @Test
  void aManifestThatExistsIsFoundAndAMissingOneIsNot() {
    assertThat(registry.exists(host() + "/team/web:v1")).isTrue();
    assertThat(registry.exists(host() + "/team/web:v2")).isFalse();
    assertThat(requests)
        .containsExactly(
            "HEAD /v2/team/web/manifests/v1 " + OciImageRegistry.ACCEPT,
            "HEAD /v2/team/web/manifests/v2 " + OciImageRegistry.ACCEPT);
  }

  @Test
  void anyOtherAnswerIsAFailureNeverAbsent() {
    assertThatThrownBy(() -> registry.exists(host() + "/broken/web:v2"))
        .isInstanceOf(ImageBuildException.class)
        .hasMessage(
            "registry probe for "
                + host()
                + "/broken/web:v2 failed: HEAD http://"
                + host()
                + "/v2/broken/web/manifests/v2 answered HTTP 503");
  }

  @Test
  void aRegistryThatIsDownIsAFailure() {
    String down = host();
    server.stop(0);

    assertThatThrownBy(() -> registry.exists(down + "/team/web:v2"))
        .isInstanceOf(ImageBuildException.class)
        .hasMessageStartingWith(
            "registry probe for "
                + down
                + "/team/web:v2 failed: HEAD http://"
                + down
                + "/v2/team/web/manifests/v2: ConnectException");
  }

  @Test
  void loopbackRegistriesAreAskedOverHttpOthersOverHttpsAndDockerHubByItsApiHost() {
    assertThat(OciImageRegistry.manifestUri(ImageRef.parse("localhost:5000/a/b:v1")))
        .isEqualTo(URI.create("http://localhost:5000/v2/a/b/manifests/v1"));
    assertThat(OciImageRegistry.isLoopback("[::1]:5000")).isTrue();
    assertThat(OciImageRegistry.manifestUri(ImageRef.parse("ghcr.io/org/app:v1")))
        .isEqualTo(URI.create("https://ghcr.io/v2/org/app/manifests/v1"));
    assertThat(OciImageRegistry.manifestUri(ImageRef.parse("nginx:1.27")))
        .isEqualTo(URI.create("https://registry-1.docker.io/v2/library/nginx/manifests/1.27"));
    String digest = "sha256:" + "a".repeat(64);
    assertThat(OciImageRegistry.manifestUri(ImageRef.parse("127.0.0.2/app:v1@" + digest)))
        .isEqualTo(URI.create("http://127.0.0.2/v2/app/manifests/" + digest));
    assertThat(OciImageRegistry.isLoopback("127.example.com")).isFalse();
  }
}
