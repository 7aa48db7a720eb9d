package dev.capstan.controller;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.capstan.common.logging.LogCapture;
import dev.capstan.k8s.JsonTrees;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.event.Level;

/**
 * The Releases as the controller reads and writes them on a stand-in API server (loopback): one
 * tenant's Release nested deeper than JSON parsers go by default (255 levels; the API server takes
 * 10,000) is read, keyed and refused alone, in the informer's list as in a watch event, read alone
 * and written to; every other Release of every tenant is read as before.
 */
class ReleaseApiTest {
  private static final String RELEASES = "/apis/capstan.dev/v1alpha1/releases";
  private static final String DEEP_PATH = "/apis/capstan.dev/v1alpha1/namespaces/tenant-a/releases";
  private static final ReleaseKey DEEP = new ReleaseKey("tenant-a", "deep");
  private static final ReleaseKey WEB = new ReleaseKey("tenant-b", "web");
  private static final ReleaseKey API = new ReleaseKey("tenant-c", "api");
  private static final String REFUSED =
      "Release tenant-a/deep: spec.manifests[0].data"
          + ".a".repeat(128)
          + ": nested deeper than 128 levels";

  private final LogCapture logs = LogCapture.open();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final ExecutorService serverThreads = Executors.newCachedThreadPool();
  private final ExecutorService informerThreads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "test-informer");
            t.setDaemon(true);
            return t;
          });
  private volatile String releaseList = list();
  private volatile String deepRelease = "";
  private HttpServer api;
  private ApiClient client;
  private @Nullable Informers informers;

  @BeforeEach
  void anApiServer() throws IOException {
    api =
        HttpServer.create(
            new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 0);
    api.setExecutor(serverThreads);
    api.createContext("/", this::serve);
    api.start();
    client = new ApiClient().setBasePath("http://127.0.0.1:" + api.getAddress().getPort());
    client.setReadTimeout(0); // watches stay open, as on the controller's watch client
  }

  @AfterEach
  void stop() {
    stopped.set(true);
    Informers i = informers;
    if (i != null) {
      i.stop();
    }
    informerThreads.shutdownNow();
    try {
      // an interrupted informer logs its failed watch as it ends: before the next test listens
      informerThreads.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    api.stop(0);
    serverThreads.shutdownNow();
    logs.close();
  }

  /** Each failed list or watch, as client-java's informer logs it. */
  private List<String> errors() {
    return logs.lines().stream()
        .filter(l -> l.level() == Level.ERROR && l.message().contains("Reflector loop failed"))
        // a watch interrupted as an earlier test's informers stop is not a failure of this one
        .filter(l -> !l.text().contains("java.io.InterruptedIOException: interrupted"))
        .map(LogCapture.Line::text)
        .toList();
  }

  /**
   * Answers as the API server would: the lists, the watches (the Releases' from {@link #events},
   * the others open and quiet), and one Release read or patched: {@link #deepRelease}.
   */
  private void serve(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String body = new String(exchange.getRequestBody().readAllBytes(), UTF_8);
    requests.add(
        exchange.getRequestMethod()
            + " "
            + path
            + (body.isEmpty()
                ? ""
                : " " + exchange.getRequestHeaders().getFirst("Content-Type") + " " + body));
    boolean watch = String.valueOf(exchange.getRequestURI().getQuery()).contains("watch=true");
    if ((path.equals("/api/v1/configmaps") || path.equals("/api/v1/secrets"))
        && !String.valueOf(exchange.getRequestHeaders().getFirst("Accept"))
            .equals(watch ? JsonTrees.METADATA_WATCH_ACCEPT : JsonTrees.METADATA_LIST_ACCEPT)) {
      // the controller reads sources' metadata only: anything else would carry their data
      exchange.sendResponseHeaders(406, -1);
      exchange.close();
      return;
    }
    if (watch) {
      stream(exchange, path.equals(RELEASES) ? events : null);
      return;
    }
    String answer =
        switch (path) {
          case RELEASES -> releaseList;
          // as the API server answers: an empty list's items are null
          case "/api/v1/secrets" ->
              "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadataList\","
                  + "\"metadata\":{\"resourceVersion\":\"1\"},\"items\":null}";
          case "/api/v1/configmaps" ->
              "{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadataList\","
                  + "\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"apiVersion\":"
                  + "\"meta.k8s.io/v1\",\"kind\":\"PartialObjectMetadata\",\"metadata\":"
                  + "{\"namespace\":\"tenant-b\",\"name\":\"source\",\"resourceVersion\":\"1\"}}]}";
          case DEEP_PATH + "/deep", DEEP_PATH + "/deep/status" -> deepRelease;
          default -> null;
        };
    byte[] bytes =
        (answer != null
                ? answer
                : "{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Failure\","
                    + "\"reason\":\"NotFound\",\"code\":404}")
            .getBytes(UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(answer != null ? 200 : 404, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** A watch: each line of {@code lines} as it comes, until the test ends. */
  private void stream(HttpExchange exchange, @Nullable BlockingQueue<String> lines)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      while (!stopped.get()) {
        String line = lines == null ? null : lines.poll(50, TimeUnit.MILLISECONDS);
        if (line != null) {
          out.write((line + "\n").getBytes(UTF_8));
          out.flush();
        } else if (lines == null) {
          Thread.sleep(50);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {"a":{"a":...{}}}: {@code levels} objects, each the only field of the one before. */
  private static String nested(int levels) {
    return "{\"a\":".repeat(levels) + "{}" + "}".repeat(levels);
  }

  /** A Release with the finalizer, casting one ConfigMap whose {@code data} is given. */
  private static String release(ReleaseKey key, String resourceVersion, String data) {
    return "{\"apiVersion\":\"capstan.dev/v1alpha1\",\"kind\":\"Release\",\"metadata\":{\"name\":\""
        + key.name()
        + "\",\"namespace\":\""
        + key.namespace()
        + "\",\"uid\":\"uid-"
        + key.name()
        + "\",\"resourceVersion\":\""
        + resourceVersion
        + "\",\"generation\":1,\"finalizers\":[\"capstan.dev/uninstall\"]},"
        + "\"spec\":{\"manifests\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
        + "\"metadata\":{\"name\":\""
        + key.name()
        + "\"},\"data\":"
        + data
        + "}]}}";
  }

  private static String release(ReleaseKey key, String resourceVersion) {
    return release(key, resourceVersion, "{\"value\":\"1\"}");
  }

  private static String list(String... items) {
    return "{\"apiVersion\":\"capstan.dev/v1alpha1\",\"kind\":\"ReleaseList\","
        + "\"metadata\":{\"resourceVersion\":\"10\"},\"items\":["
        + String.join(",", items)
        + "]}";
  }

  private static String event(String type, String object) {
    return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
  }

  /** What ReleaseRequest reads of a Release read as before: its one ConfigMap. */
  private static List<Object> manifests(ReleaseKey key) {
    return List.of(
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "ConfigMap",
            "metadata",
            Map.of("name", key.name()),
            "data",
            Map.of("value", "1")));
  }

  private KubernetesReleaseObjects started() throws InterruptedException {
    Informers i = new Informers(client, null, informerThreads);
    informers = i;
    i.start();
    boolean synced = i.awaitSynced(Duration.ofSeconds(10));
    assertThat(synced).as("the caches hold their first lists; logged: %s", errors()).isTrue();
    return new KubernetesReleaseObjects(i.releases(), client, Clock.systemUTC(), "test");
  }

  private static List<ReleaseKey> keys(ReleaseObjects objects) {
    return objects.list().stream().map(ReleaseResource::key).toList();
  }

  private void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("not within 30 s: " + what + "; logged: " + errors());
      }
      Thread.sleep(20);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {300, 10_000})
  void aReleaseNestedTooDeepInTheListIsRefusedAloneAndEveryOtherIsReadAsBefore(int levels)
      throws InterruptedException {
    releaseList = list(release(DEEP, "8", nested(levels)), release(WEB, "9"));

    KubernetesReleaseObjects objects = started();

    assertThat(keys(objects)).containsExactlyInAnyOrder(DEEP, WEB);
    assertThat(ReleaseRequest.read(java.util.Objects.requireNonNull(objects.get(WEB))).manifests())
        .isEqualTo(manifests(WEB));
    ReleaseResource deep = java.util.Objects.requireNonNull(objects.get(DEEP));
    assertThat(deep.uid()).isEqualTo("uid-deep");
    assertThat(deep.resourceVersion()).isEqualTo("8");
    assertThat(deep.hasFinalizer()).isTrue();
    assertThatThrownBy(() -> ReleaseRequest.read(deep))
        .isInstanceOf(InvalidReleaseResourceException.class)
        .hasMessage(REFUSED);
    assertThat(errors()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(ints = {300, 10_000})
  void aReleaseNestedTooDeepInAWatchEventIsRefusedAloneAndTheEventsAfterItAreRead(int levels)
      throws InterruptedException {
    releaseList = list(release(WEB, "9"));
    KubernetesReleaseObjects objects = started();

    events.add(event("ADDED", release(DEEP, "11", nested(levels))));
    events.add(event("ADDED", release(API, "12")));
    await("the cache holds the Release added after the deep one", () -> objects.get(API) != null);

    assertThat(keys(objects)).containsExactlyInAnyOrder(DEEP, WEB, API);
    assertThat(ReleaseRequest.read(java.util.Objects.requireNonNull(objects.get(API))).manifests())
        .isEqualTo(manifests(API));
    ReleaseResource deep = java.util.Objects.requireNonNull(objects.get(DEEP));
    assertThat(deep.resourceVersion()).isEqualTo("11");
    assertThatThrownBy(() -> ReleaseRequest.read(deep))
        .isInstanceOf(InvalidReleaseResourceException.class)
        .hasMessage(REFUSED);

    events.add(event("DELETED", release(DEEP, "13", nested(levels))));
    await("the cache lets the deleted Release go", () -> objects.get(DEEP) == null);
    assertThat(keys(objects)).containsExactlyInAnyOrder(WEB, API);
    assertThat(errors()).isEmpty();
  }

  @Test
  void aReleaseNestedTooDeepIsReadAloneAndRefused() {
    deepRelease = release(DEEP, "11", nested(10_000));

    ReleaseResource deep = ReleaseResource.get(client, DEEP).orElseThrow();

    assertThat(deep.key()).isEqualTo(DEEP);
    assertThat(deep.resourceVersion()).isEqualTo("11");
    assertThatThrownBy(() -> ReleaseRequest.read(deep)).hasMessage(REFUSED);
    assertThat(ReleaseResource.get(client, new ReleaseKey("tenant-a", "gone"))).isEmpty();
  }

  @Test
  void theStatusAndFinalizerOfAReleaseNestedTooDeepAreWrittenReadingNothingOfTheAnswer() {
    // the API server answers each patch with the Release as patched: as deep
    deepRelease = release(DEEP, "11", nested(10_000));
    ReleaseResource deep =
        new ReleaseResource(
            DEEP,
            "uid-deep",
            1,
            "11",
            true,
            List.of(ReleaseResource.FINALIZER),
            Map.of(),
            Map.of(),
            Map.of());
    KubernetesReleaseObjects objects =
        new KubernetesReleaseObjects(
            new io.kubernetes.client.informer.cache.Lister<>(
                new io.kubernetes.client.informer.cache.Cache<>()),
            client,
            Clock.systemUTC(),
            "test");

    objects.writeStatus(deep, Map.of("observedGeneration", 1));
    objects.removeFinalizer(deep);
    ReleaseResource.patch(client, DEEP, "{\"spec\":{\"suspend\":true}}");

    assertThat(requests)
        .containsExactly(
            "PATCH "
                + DEEP_PATH
                + "/deep/status application/merge-patch+json"
                + " {\"status\":{\"observedGeneration\":1}}",
            "PATCH "
                + DEEP_PATH
                + "/deep application/merge-patch+json"
                + " {\"metadata\":{\"resourceVersion\":\"11\",\"finalizers\":[]}}",
            "PATCH "
                + DEEP_PATH
                + "/deep application/merge-patch+json"
                + " {\"spec\":{\"suspend\":true}}");
  }
}
