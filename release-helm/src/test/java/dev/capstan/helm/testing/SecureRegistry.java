package dev.capstan.helm.testing;

import dev.capstan.k8s.testing.Programs;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * An OCI registry on 127.0.0.1 for chart tests: the CNCF distribution registry the other tests run
 * ({@code testing/registry/build.sh}, system property {@code capstan.registry.build}), with TLS by
 * a {@link TestCa} and one user by htpasswd: {@link #USER} with {@link #PASSWORD}.
 */
public final class SecureRegistry implements AutoCloseable {
  /** The registry's one user. */
  public static final String USER = "charts";

  /** Its password. */
  public static final String PASSWORD = "charts-s3cret";

  /** {@link #PASSWORD} hashed with bcrypt, as htpasswd keeps it (a test credential). */
  private static final String BCRYPT =
      "$2b$05$4rsI8IzPkOtVxnvOf3TurOpzvv3l6ssZfkRcZr0Fn6EYSMW51UsOO";

  private final Process process;
  private final int port;

  private SecureRegistry(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts a registry storing in {@code dir}; waits until {@code /v2/} answers 401. */
  public static SecureRegistry start(Path dir, TestCa ca) throws IOException, InterruptedException {
    Path binary = binary();
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    Path htpasswd = dir.resolve("htpasswd");
    Files.writeString(htpasswd, USER + ":" + BCRYPT + "\n", StandardCharsets.UTF_8);
    Path config = dir.resolve("registry.yml");
    Files.writeString(
        config,
        "version: 0.1\n"
            + "log: {level: warn}\n"
            + "storage: {filesystem: {rootdirectory: "
            + Files.createDirectories(dir.resolve("data"))
            + "}}\n"
            + "auth: {htpasswd: {realm: charts, path: "
            + htpasswd
            + "}}\n"
            + "http:\n"
            + "  addr: 127.0.0.1:"
            + port
            + "\n"
            + "  tls: {certificate: "
            + ca.cert()
            + ", key: "
            + ca.key()
            + "}\n");
    Process process =
        new ProcessBuilder(binary.toString(), "serve", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("registry.log").toFile())
            .start();
    SecureRegistry registry = new SecureRegistry(process, port);
    HttpClient http = HttpClient.newBuilder().sslContext(trusting(ca)).build();
    Instant deadline = Instant.now().plusSeconds(30);
    while (true) {
      try {
        HttpRequest probe =
            HttpRequest.newBuilder(URI.create("https://" + registry.host() + "/v2/"))
                .timeout(Duration.ofSeconds(5))
                .build();
        if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 401) {
          return registry;
        }
      } catch (IOException notYet) {
        // still starting
      }
      if (!process.isAlive() || Instant.now().isAfter(deadline)) {
        registry.close();
        throw new IllegalStateException(
            "the registry did not start; see " + dir.resolve("registry.log"));
      }
      Thread.sleep(100);
    }
  }

  private static SSLContext trusting(TestCa ca) throws IOException {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      try (var in = Files.newInputStream(ca.ca())) {
        trust.setCertificateEntry(
            "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, tmf.getTrustManagers(), null);
      return tls;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The binary {@code testing/registry/build.sh} built (building it the first time). */
  private static Path binary() {
    String script = System.getProperty("capstan.registry.build", "../testing/registry/build.sh");
    Programs.run(List.of("bash", script), null, Duration.ofMinutes(30));
    return Path.of(
        Programs.run(List.of("bash", script, "--print-bin"), null, Duration.ofMinutes(1)).strip());
  }

  /**
   * Logs Helm in to this registry for the {@link HelmBinaries#helm3} runs under {@code home}, as
   * {@code helm registry login} would: {@link #USER} and {@link #PASSWORD} in its registry config.
   */
  public void login(Path home) throws IOException {
    String auth =
        java.util.Base64.getEncoder()
            .encodeToString(
                (USER + ":" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Path config = home.resolve("config/registry/config.json");
    java.nio.file.Files.createDirectories(config.getParent());
    java.nio.file.Files.writeString(
        config, "{\"auths\":{\"" + host() + "\":{\"auth\":\"" + auth + "\"}}}");
  }

  /** {@code 127.0.0.1:PORT}. */
  public String host() {
    return "127.0.0.1:" + port;
  }

  /** Stops the registry (its own process) and waits for it. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
