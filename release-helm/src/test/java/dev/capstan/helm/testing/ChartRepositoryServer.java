package dev.capstan.helm.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A chart repository over HTTPS on 127.0.0.1: serves the files of a folder ({@code index.yaml} and
 * packaged charts) under {@code /charts/}, to a client that gives the user and password by Basic
 * authentication (401 otherwise), with a certificate of a {@link TestCa}. Records each request as
 * {@code METHOD PATH user}.
 */
public final class ChartRepositoryServer implements AutoCloseable {
  private final HttpsServer server;
  private final Path root;
  private final String expected;
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());

  private ChartRepositoryServer(HttpsServer server, Path root, String user, String password) {
    this.server = server;
    this.root = root;
    this.expected =
        "Basic "
            + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** Starts a repository serving {@code root}, for {@code user} and {@code password}. */
  public static ChartRepositoryServer start(Path root, TestCa ca, String user, String password) {
    try {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(ca.pkcs12())) {
        keys.load(in, TestCa.PASSWORD.toCharArray());
      }
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, TestCa.PASSWORD.toCharArray());
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(kmf.getKeyManagers(), null, null);
      HttpsServer server =
          HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      server.setHttpsConfigurator(new HttpsConfigurator(tls));
      ChartRepositoryServer repo = new ChartRepositoryServer(server, root, user, password);
      server.createContext("/", repo::serve);
      server.start();
      return repo;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS for the chart repository", e);
    }
  }

  /** {@code https://127.0.0.1:PORT/charts}. */
  public String url() {
    return "https://127.0.0.1:" + server.getAddress().getPort() + "/charts";
  }

  /** The requests served so far: {@code GET /charts/index.yaml ok} or {@code ... 401}. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      boolean authorized = expected.equals(exchange.getRequestHeaders().getFirst("Authorization"));
      requests.add(exchange.getRequestMethod() + " " + path + (authorized ? " ok" : " 401"));
      if (!authorized) {
        exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"charts\"");
        exchange.sendResponseHeaders(401, -1);
        return;
      }
      String name = path.startsWith("/charts/") ? path.substring("/charts/".length()) : "";
      Path file = root.resolve(name).normalize();
      if (name.isEmpty()
          || name.contains("/")
          || !file.startsWith(root)
          || !Files.isRegularFile(file)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] body = Files.readAllBytes(file);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
