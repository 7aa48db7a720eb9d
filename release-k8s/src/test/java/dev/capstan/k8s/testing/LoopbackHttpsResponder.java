package dev.capstan.k8s.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A tiny HTTPS server on {@code 127.0.0.1} for what the API server calls back (an aggregated
 * APIService, an admission or conversion webhook): the control plane refuses any of them that names
 * a Service (see {@code testing/control-plane/README.md}), so tests point them at this responder
 * instead. It answers every request with HTTP 200 and the JSON body the test supplies, and records
 * each request's method and path. Requests are served on threads of their own: the API server calls
 * a conversion webhook while an admission webhook's call may still be open.
 *
 * <p>Its certificate is self-signed (made with the JDK's {@code keytool}), for {@code localhost}
 * and {@code 127.0.0.1}; {@link #caBundle()} is the PEM to put into a {@code caBundle}.
 */
public final class LoopbackHttpsResponder implements AutoCloseable {
  private static final String PASSWORD = "capstan-loopback";

  private final HttpsServer server;
  private final ExecutorService threads;
  private final String caBundle;
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());

  private LoopbackHttpsResponder(HttpsServer server, ExecutorService threads, String caBundle) {
    this.server = server;
    this.threads = threads;
    this.caBundle = caBundle;
  }

  /**
   * Starts a responder on a free port of 127.0.0.1 whose answer depends on the path only.
   *
   * @param body the JSON body of the answer to a request for a path
   */
  public static LoopbackHttpsResponder start(Function<String, String> body) {
    return answering((path, request) -> body.apply(path));
  }

  /**
   * Starts a responder on a free port of 127.0.0.1 whose answer depends on the request: a webhook
   * answers the review it was sent.
   *
   * @param answer the JSON body of the answer, from the path and the request's body (UTF-8)
   */
  public static LoopbackHttpsResponder answering(BiFunction<String, String, String> answer) {
    try {
      Path dir = Files.createTempDirectory("capstan-responder");
      Path store = dir.resolve("responder.p12");
      Path cert = dir.resolve("responder.pem");
      keytool(
          "-genkeypair",
          "-keystore",
          store.toString(),
          "-storetype",
          "PKCS12",
          "-storepass",
          PASSWORD,
          "-keypass",
          PASSWORD,
          "-alias",
          "responder",
          "-keyalg",
          "EC",
          "-groupname",
          "secp256r1",
          "-validity",
          "2",
          "-dname",
          "CN=localhost",
          "-ext",
          "san=dns:localhost,ip:127.0.0.1");
      keytool(
          "-exportcert",
          "-rfc",
          "-keystore",
          store.toString(),
          "-storepass",
          PASSWORD,
          "-alias",
          "responder",
          "-file",
          cert.toString());
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(store)) {
        keys.load(in, PASSWORD.toCharArray());
      }
      String pem = Files.readString(cert, UTF_8);
      Files.delete(store);
      Files.delete(cert);
      Files.delete(dir);
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, PASSWORD.toCharArray());
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(kmf.getKeyManagers(), null, null);
      HttpsServer server =
          HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      server.setHttpsConfigurator(new HttpsConfigurator(tls));
      ExecutorService threads =
          Executors.newCachedThreadPool(
              task -> {
                Thread thread = new Thread(task, "loopback-responder");
                thread.setDaemon(true);
                return thread;
              });
      server.setExecutor(threads);
      LoopbackHttpsResponder responder = new LoopbackHttpsResponder(server, threads, pem);
      server.createContext("/", exchange -> responder.answer(exchange, answer));
      server.start();
      return responder;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the loopback HTTPS responder", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS for the loopback HTTPS responder", e);
    }
  }

  private void answer(HttpExchange exchange, BiFunction<String, String, String> answer)
      throws IOException {
    String path = exchange.getRequestURI().getPath();
    requests.add(exchange.getRequestMethod() + " " + path);
    String request;
    try (InputStream in = exchange.getRequestBody()) {
      request = new String(in.readAllBytes(), UTF_8);
    }
    byte[] bytes = answer.apply(path, request).getBytes(UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    try (var out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** The port it listens on, on 127.0.0.1. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Its self-signed certificate, PEM-encoded. */
  public String caBundle() {
    return caBundle;
  }

  /** The requests answered so far, oldest first: {@code "GET /apis/example.test/v1"}. */
  public List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  private static void keytool(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home", "/usr"), "bin", "keytool").toString());
    Collections.addAll(command, args);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running keytool", e);
    }
  }
}
