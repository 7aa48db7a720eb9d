package dev.capstan.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's HTTP endpoints, on one address (the JDK's HTTP server, one thread): {@code
 * /healthz} (200 while the controller runs: liveness), {@code /readyz} (200 once its caches hold
 * their first lists, 503 before: readiness), and {@code /metrics} (the Prometheus text the metrics
 * give, 404 when there are none). GET and HEAD only; nothing else is served.
 */
final class ControllerEndpoints implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ControllerEndpoints.class);

  /** The content type of Prometheus' text format. */
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService thread;

  /**
   * Binds {@code address} and serves at once.
   *
   * @param live whether the controller runs
   * @param ready whether it is ready
   * @param metrics the Prometheus text of the metrics, or null for none
   * @throws UncheckedIOException when the address cannot be bound
   */
  ControllerEndpoints(
      InetSocketAddress address,
      BooleanSupplier live,
      BooleanSupplier ready,
      @Nullable Supplier<String> metrics) {
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve the controller's endpoints on " + address + ": " + e.getMessage(), e);
    }
    server.createContext(
        "/healthz", x -> answer(x, live.getAsBoolean() ? 200 : 503, live.getAsBoolean()));
    server.createContext(
        "/readyz", x -> answer(x, ready.getAsBoolean() ? 200 : 503, ready.getAsBoolean()));
    server.createContext(
        "/metrics",
        x -> {
          if (!allowed(x)) {
            return;
          }
          if (metrics == null) {
            send(x, 404, "text/plain; charset=utf-8", "no metrics: none were given\n");
            return;
          }
          String text;
          try {
            text = metrics.get();
          } catch (RuntimeException e) {
            LOG.warn("the metrics could not be read: {}", String.valueOf(e.getMessage()));
            send(x, 500, "text/plain; charset=utf-8", "the metrics could not be read\n");
            return;
          }
          send(x, 200, PROMETHEUS_TEXT, text);
        });
    server.createContext("/", x -> send(x, 404, "text/plain; charset=utf-8", "not found\n"));
    thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "capstan-controller-endpoints");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(thread);
    server.start();
  }

  /** The address served (with the port chosen, when port 0 was asked for). */
  InetSocketAddress address() {
    return server.getAddress();
  }

  private static void answer(HttpExchange x, int status, boolean ok) throws IOException {
    if (allowed(x)) {
      send(x, status, "text/plain; charset=utf-8", ok ? "ok\n" : "not ready\n");
    }
  }

  private static boolean allowed(HttpExchange x) throws IOException {
    String method = x.getRequestMethod();
    if (method.equals("GET") || method.equals("HEAD")) {
      return true;
    }
    x.getResponseHeaders().set("Allow", "GET, HEAD");
    send(x, 405, "text/plain; charset=utf-8", "only GET and HEAD\n");
    return false;
  }

  private static void send(HttpExchange x, int status, String type, String body)
      throws IOException {
    try (x) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", type);
      boolean head = x.getRequestMethod().equals("HEAD");
      x.sendResponseHeaders(status, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = x.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  /** Stops serving at once. */
  @Override
  public void close() {
    server.stop(0);
    thread.shutdownNow();
  }
}
