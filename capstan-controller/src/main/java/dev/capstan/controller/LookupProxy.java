package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.capstan.common.PrivateFolder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/**
 * How a chart's {@code lookup} reads the cluster as the Release's account, and as nothing else: a
 * read-only HTTP proxy on the loopback address, in the controller's process. Each rendering gets a
 * {@link Grant}: a random token of its own, valid until the rendering ends, that maps to the
 * account's (impersonating) client. Helm's kubeconfig names the proxy with that token as the first
 * segment of its path (client-go sends a kubeconfig's credentials over TLS only, so a bearer token
 * would never reach a plain-HTTP server), and nothing else, so no credential of the controller —
 * its token, its kubeconfig, its certificates — reaches Helm or a template, and Helm can send
 * nothing but {@code GET} requests for API paths ({@code /api}, {@code /apis}, {@code /version},
 * {@code /openapi}): no write, no watch, no proxy to pods or services, each request decided by the
 * API server as the account (ARCHITECTURE.md, "The Release controller").
 */
final class LookupProxy implements AutoCloseable {
  private static final List<String> READABLE = List.of("/api", "/apis", "/version", "/openapi");
  private static final List<String> SUBRESOURCES =
      List.of("proxy", "log", "exec", "attach", "portforward");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final HttpServer server;
  private final ExecutorService threads;
  private final Map<String, ApiClient> grants = new ConcurrentHashMap<>();

  private LookupProxy(HttpServer server, ExecutorService threads) {
    this.server = server;
    this.threads = threads;
  }

  /** A proxy on a free port of the loopback address. */
  static LookupProxy start() {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve chart lookups on the loopback address", e);
    }
    ExecutorService threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "capstan-controller-lookup");
              t.setDaemon(true);
              return t;
            });
    LookupProxy proxy = new LookupProxy(server, threads);
    server.createContext("/", proxy::handle);
    server.setExecutor(threads);
    server.start();
    return proxy;
  }

  /** The proxy's address: {@code http://127.0.0.1:PORT}. */
  String url() {
    InetSocketAddress a = server.getAddress();
    return "http://" + a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  /**
   * A grant to read through {@code client} until it is closed.
   *
   * @param client the account's client, whose requests the API server decides as the account
   */
  Grant grant(ApiClient client) {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String token = HexFormat.of().formatHex(bytes);
    grants.put(token, requireNonNull(client, "client"));
    return new Grant(token);
  }

  /** One rendering's right to read through the proxy; closing it ends the right. */
  final class Grant implements AutoCloseable {
    private final String token;

    private Grant(String token) {
      this.token = token;
    }

    /** The grant's token, which messages must not show. */
    String token() {
      return token;
    }

    /**
     * A kubeconfig naming the proxy and this grant's token only, written to {@code folder}.
     *
     * @param namespace the default namespace of the context
     */
    Path kubeconfig(PrivateFolder folder, String namespace) {
      String yaml =
          "apiVersion: v1\n"
              + "kind: Config\n"
              + "clusters:\n"
              + "- name: lookup\n"
              + "  cluster: {server: \""
              + url()
              + "/"
              + token
              + "\"}\n"
              + "users:\n"
              + "- name: lookup\n"
              + "  user: {}\n"
              + "contexts:\n"
              + "- name: lookup\n"
              + "  context: {cluster: lookup, user: lookup, namespace: \""
              + namespace
              + "\"}\n"
              + "current-context: lookup\n";
      return folder.write("kubeconfig", yaml);
    }

    @Override
    public void close() {
      grants.remove(token);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      URI uri = exchange.getRequestURI();
      String full = uri.getRawPath() == null ? "/" : uri.getRawPath();
      int slash = full.indexOf('/', 1);
      String token = slash < 0 ? full.substring(1) : full.substring(1, slash);
      ApiClient client = grants.get(token);
      String path = slash < 0 ? "/" : full.substring(slash);
      String query = uri.getRawQuery();
      if (client == null) {
        status(exchange, 401, "Unauthorized", "no rendering holds this token");
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")) {
        status(exchange, 405, "MethodNotAllowed", "a chart's lookup only reads");
        return;
      }
      if (!readable(path) || watches(query)) {
        status(exchange, 403, "Forbidden", "a chart's lookup reads API objects only");
        return;
      }
      forward(exchange, client, path, query);
    }
  }

  /**
   * Whether a query names {@code watch} in any spelling the API server reads (it decodes each key
   * and takes {@code 1}, {@code t}, {@code True} and the rest as true): a lookup never watches, so
   * any {@code watch} parameter, whatever its value, or a query that does not decode, is refused.
   */
  static boolean watches(@Nullable String query) {
    if (query == null) {
      return false;
    }
    for (String parameter : query.split("[&;]", -1)) {
      int equals = parameter.indexOf('=');
      String key = equals < 0 ? parameter : parameter.substring(0, equals);
      try {
        if (java.net.URLDecoder.decode(key, java.nio.charset.StandardCharsets.UTF_8)
            .equals("watch")) {
          return true;
        }
      } catch (IllegalArgumentException undecodable) {
        return true;
      }
    }
    return false;
  }

  private static boolean readable(String path) {
    if (path.contains("..") || path.contains("%")) {
      return false;
    }
    for (String prefix : READABLE) {
      if (path.equals(prefix) || path.startsWith(prefix + "/")) {
        for (String sub : SUBRESOURCES) {
          if (path.endsWith("/" + sub) || path.contains("/" + sub + "/")) {
            return false;
          }
        }
        return true;
      }
    }
    return false;
  }

  private static void forward(
      HttpExchange exchange, ApiClient client, String path, @Nullable String query)
      throws IOException {
    String url = client.getBasePath() + path + (query == null ? "" : "?" + query);
    Map<String, String> headers = new HashMap<>();
    String accept = exchange.getRequestHeaders().getFirst("Accept");
    if (accept != null) {
      headers.put("Accept", accept);
    }
    try {
      client.updateParamsForAuth(
          new String[] {"BearerToken"},
          new ArrayList<Pair>(),
          headers,
          new HashMap<>(),
          null,
          "GET",
          URI.create(url));
    } catch (ApiException e) {
      status(exchange, 500, "InternalError", "cannot authenticate the request");
      return;
    }
    Request.Builder request = new Request.Builder().url(url).get();
    headers.forEach(request::header);
    try (Response response = client.getHttpClient().newCall(request.build()).execute()) {
      ResponseBody body = response.body();
      String type = response.header("Content-Type");
      if (type != null) {
        exchange.getResponseHeaders().set("Content-Type", type);
      }
      exchange.sendResponseHeaders(response.code(), 0);
      try (OutputStream out = exchange.getResponseBody()) {
        if (body != null) {
          try (InputStream in = body.byteStream()) {
            in.transferTo(out);
          }
        }
      }
    }
  }

  /** A Kubernetes {@code Status} answer, as client-go reads a refusal. */
  private static void status(HttpExchange exchange, int code, String reason, String message)
      throws IOException {
    byte[] body =
        ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\""
                + message
                + "\",\"reason\":\""
                + reason
                + "\",\"code\":"
                + code
                + "}")
            .getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Stops serving; grants still open read nothing more. */
  @Override
  public void close() {
    grants.clear();
    server.stop(0);
    threads.shutdownNow();
  }
}
