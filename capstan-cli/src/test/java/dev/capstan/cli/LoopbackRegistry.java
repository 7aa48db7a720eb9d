package dev.capstan.cli;

import dev.capstan.k8s.testing.Programs;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real OCI registry on 127.0.0.1 for tests: the CNCF distribution registry, storing in a
 * temporary folder, on a free port. {@code readOnly} starts it in maintenance read-only mode: reads
 * and probes work, pushes are refused.
 *
 * <p>The binary comes from {@code testing/registry/build.sh} (system property {@code
 * capstan.registry.build}), which builds it from the Go module proxy into {@code ~/.cache/capstan}
 * the first time and only checks it afterwards; {@code CAPSTAN_REGISTRY_BIN} names another binary
 * instead. Public for capstan-image's ControllerImageIT, which pushes the image to one.
 */
public final class LoopbackRegistry implements AutoCloseable {
  private static final Map<String, Path> BINARY = new ConcurrentHashMap<>();

  private final Process process;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();

  private LoopbackRegistry(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts a registry and waits until {@code GET /v2/} answers 200. */
  public static LoopbackRegistry start(Path dir, boolean readOnly)
      throws IOException, InterruptedException {
    Path binary = BINARY.computeIfAbsent("registry", k -> binary());
    int port = freePort();
    Path storage = Files.createDirectories(dir.resolve("registry-data"));
    Path config = dir.resolve("registry.yml");
    Files.writeString(
        config,
        "version: 0.1\n"
            + "log: {level: warn}\n"
            + "storage:\n"
            + "  filesystem: {rootdirectory: "
            + storage
            + "}\n"
            + "  maintenance:\n"
            + "    uploadpurging: {enabled: false}\n"
            + "    readonly: {enabled: "
            + readOnly
            + "}\n"
            + "http: {addr: '127.0.0.1:"
            + port
            + "'}\n");
    Process process =
        new ProcessBuilder(binary.toString(), "serve", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("registry.log").toFile())
            .start();
    LoopbackRegistry registry = new LoopbackRegistry(process, port);
    Instant deadline = Instant.now().plusSeconds(20);
    while (true) {
      try {
        if (registry.status("/v2/") == 200) {
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

  /** {@code CAPSTAN_REGISTRY_BIN}, or the binary {@code testing/registry/build.sh} built. */
  private static Path binary() {
    String env = System.getenv("CAPSTAN_REGISTRY_BIN");
    if (env != null && !env.isBlank()) {
      Path binary = Path.of(env);
      if (!Files.isExecutable(binary)) {
        throw new IllegalStateException(
            "CAPSTAN_REGISTRY_BIN names no executable: "
                + binary
                + "; unset it to build the registry with testing/registry/build.sh");
      }
      return binary;
    }
    String script = System.getProperty("capstan.registry.build", "../testing/registry/build.sh");
    script(List.of("bash", script), 30);
    return Path.of(script(List.of("bash", script, "--print-bin"), 1).strip());
  }

  /** Runs a build script, its output echoed; returns the output, or fails with it. */
  private static String script(List<String> command, int minutes) {
    String text = Programs.run(command, null, Duration.ofMinutes(minutes));
    System.out.print(text);
    return text;
  }

  /** {@code 127.0.0.1:<port>}, the registry part of image references. */
  public String host() {
    return "127.0.0.1:" + port;
  }

  /** Whether the registry has the manifest of {@code repository:tag}. */
  public boolean has(String repository, String tag) throws IOException, InterruptedException {
    int status = status("/v2/" + repository + "/manifests/" + tag);
    if (status != 200 && status != 404) {
      throw new IllegalStateException("registry answered HTTP " + status);
    }
    return status == 200;
  }

  private int status(String path) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://" + host() + path))
            .timeout(Duration.ofSeconds(5))
            .header("Accept", "application/vnd.oci.image.manifest.v1+json")
            .GET()
            .build();
    return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Stops the registry (its own process only) and waits for it. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
