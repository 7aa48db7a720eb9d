package dev.capstan.k8s;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A tiny HTTPS server on 127.0.0.1 for an aggregated API's backend in tests: it answers every
 * request with the API resource list of one group version (what the kube-aggregator's availability
 * check and discovery ask for), with a self-signed certificate made by the JDK's keytool. The port
 * can be picked (and left unanswered) before the server starts, for a backend that answers late.
 */
final class LoopbackHttps implements AutoCloseable {
  private final int port;
  private final String groupVersion;
  private @org.jspecify.annotations.Nullable HttpsServer server;

  private LoopbackHttps(int port, String groupVersion) {
    this.port = port;
    this.groupVersion = groupVersion;
  }

  /** A free loopback port, nothing listening on it yet. */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A server for {@code group/version} on {@code port}, not started. */
  static LoopbackHttps on(int port, String group, String version) {
    return new LoopbackHttps(port, group + "/" + version);
  }

  int port() {
    return port;
  }

  /** Starts answering. */
  synchronized LoopbackHttps start(Path dir) {
    try {
      Path keystore = dir.resolve("backend-" + port + ".p12");
      char[] password = "changeit".toCharArray();
      Process keytool =
          new ProcessBuilder(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                      "-genkeypair",
                      "-alias",
                      "backend",
                      "-keyalg",
                      "EC",
                      "-dname",
                      "CN=localhost",
                      "-ext",
                      "SAN=dns:localhost,ip:127.0.0.1",
                      "-validity",
                      "2",
                      "-storetype",
                      "PKCS12",
                      "-keystore",
                      keystore.toString(),
                      "-storepass",
                      new String(password)))
              .redirectErrorStream(true)
              .start();
      String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
        throw new IllegalStateException("keytool failed: " + output);
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(keystore)) {
        store.load(in, password);
      }
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keys.getKeyManagers(), null, null);
      HttpsServer https =
          HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      byte[] body =
          ("{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\""
                  + groupVersion
                  + "\",\"resources\":[]}")
              .getBytes(StandardCharsets.UTF_8);
      https.createContext(
          "/",
          exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      https.start();
      server = https;
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public synchronized void close() {
    HttpsServer https = server;
    if (https != null) {
      https.stop(0);
    }
  }
}
