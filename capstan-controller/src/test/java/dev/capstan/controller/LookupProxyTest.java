package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.capstan.common.PrivateFolder;
import io.kubernetes.client.openapi.ApiClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LookupProxy}: a grant's token opens reads of API paths, forwarded with the account's
 * client (its credential added on the way out); anything else is refused before it reaches the API
 * server, and a closed grant opens nothing.
 */
class LookupProxyTest {
  private final List<String> upstream = new CopyOnWriteArrayList<>();
  private HttpServer api;
  private LookupProxy proxy;
  private ApiClient account;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void anApiServerAndAProxy() throws Exception {
    api = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    api.createContext(
        "/",
        exchange -> {
          upstream.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " auth="
                  + exchange.getRequestHeaders().getFirst("Authorization")
                  + " accept="
                  + exchange.getRequestHeaders().getFirst("Accept"));
          byte[] body = "{\"kind\":\"Secret\"}".getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    api.start();
    account = new ApiClient();
    account.setBasePath("http://127.0.0.1:" + api.getAddress().getPort());
    account.setApiKeyPrefix("Bearer");
    account.setApiKey("the-accounts-token");
    proxy = LookupProxy.start();
  }

  @AfterEach
  void stop() {
    proxy.close();
    api.stop(0);
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(proxy.url() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .header("Accept", "application/json")
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aGrantsTokenReadsApiPathsWithTheAccountsCredentialAndNothingElse() throws Exception {
    LookupProxy.Grant grant = proxy.grant(account);
    String t = "/" + grant.token();
    try (PrivateFolder folder = PrivateFolder.create(null, "lookup-test-")) {
      HttpResponse<String> read = send("GET", t + "/api/v1/namespaces/shop/secrets/db");
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.body()).isEqualTo("{\"kind\":\"Secret\"}");
      assertThat(send("GET", t + "/apis/apps/v1/namespaces/shop/deployments?limit=5").statusCode())
          .isEqualTo(200);

      assertThat(send("POST", t + "/api/v1/namespaces/shop/secrets").statusCode()).isEqualTo(405);
      for (String watch :
          List.of(
              "watch=true",
              "watch=t",
              "watch=True",
              "limit=5&watch=1",
              "%77atch=true",
              "watch=%74rue",
              "watch")) {
        assertThat(send("GET", t + "/api/v1/secrets?" + watch).statusCode())
            .as(watch)
            .isEqualTo(403);
      }
      assertThat(send("GET", t + "/api/v1/namespaces/shop/pods/web/log").statusCode())
          .isEqualTo(403);
      assertThat(send("GET", t + "/api/v1/namespaces/shop/services/web/proxy/").statusCode())
          .isEqualTo(403);
      assertThat(send("GET", t + "/healthz").statusCode()).isEqualTo(403);
      assertThat(send("GET", "/not-a-token/api/v1/secrets").statusCode()).isEqualTo(401);

      assertThat(upstream)
          .containsExactly(
              "GET /api/v1/namespaces/shop/secrets/db auth=Bearer the-accounts-token"
                  + " accept=application/json",
              "GET /apis/apps/v1/namespaces/shop/deployments?limit=5 auth=Bearer"
                  + " the-accounts-token accept=application/json");
      String kubeconfig = Files.readString(grant.kubeconfig(folder, "shop"));
      assertThat(kubeconfig)
          .contains("server: \"" + proxy.url() + "/" + grant.token() + "\"")
          .doesNotContain("the-accounts-token");
    } finally {
      grant.close();
    }
    upstream.clear();
    assertThat(send("GET", t + "/api/v1/namespaces/shop/secrets/db").statusCode()).isEqualTo(401);
    assertThat(upstream).isEmpty();
  }
}
