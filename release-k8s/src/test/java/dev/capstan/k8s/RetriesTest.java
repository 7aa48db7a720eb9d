package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.Backoff;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.Test;

/** Which failures are retried, after which pauses, and how a retried write meets its first try. */
class RetriesTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final String BASE = "https://127.0.0.1:6443/api/v1/namespaces/shop/configmaps";

  private final List<Duration> sleeps = new ArrayList<>();
  private final List<String> notices = new ArrayList<>();
  private final List<String> sent = new ArrayList<>();
  private final Deque<Object> script = new ArrayDeque<>();

  private Retries retries(int attempts) {
    return new Retries(
        new Backoff(
            Duration.ofMillis(200),
            Duration.ofSeconds(5),
            attempts,
            Duration.ofSeconds(30),
            new Random(42)),
        sleeps::add,
        (request, attempt, delay, reason) ->
            notices.add(request + " #" + attempt + " in " + delay.toMillis() + "ms: " + reason));
  }

  /** The "server": answers each request with the next scripted response or error. */
  private Response serve(Interceptor.Chain chain) throws IOException {
    Request r = chain.request();
    sent.add(r.method() + " " + r.url().encodedPath());
    Object next = script.removeFirst();
    if (next instanceof IOException e) {
      throw e;
    }
    Object[] answer = (Object[]) next;
    Response.Builder b =
        new Response.Builder()
            .request(r)
            .protocol(Protocol.HTTP_1_1)
            .code((Integer) answer[0])
            .message("x")
            .body(ResponseBody.create((String) answer[1], JSON));
    if (answer.length > 2) {
      b.header("Retry-After", (String) answer[2]);
    }
    return b.build();
  }

  private Response call(Retries retries, Request request) throws IOException {
    OkHttpClient client =
        new OkHttpClient.Builder().addInterceptor(retries).addInterceptor(this::serve).build();
    return client.newCall(request).execute();
  }

  private static Object[] answer(int code, String body, String... retryAfter) {
    return retryAfter.length == 0
        ? new Object[] {code, body}
        : new Object[] {code, body, retryAfter[0]};
  }

  private static String status(int code, String message) {
    return "{\"kind\":\"Status\",\"code\":" + code + ",\"message\":\"" + message + "\"}";
  }

  @Test
  void refusedConnectionsAreRetriedWithTheSeededBackoffUntilTheServerAnswers() throws Exception {
    script.add(new ConnectException("Failed to connect to /127.0.0.1:6443"));
    script.add(new ConnectException("Failed to connect to /127.0.0.1:6443"));
    script.add(new ConnectException("Failed to connect to /127.0.0.1:6443"));
    script.add(answer(200, "{}"));

    try (Response r = call(retries(10), new Request.Builder().url(BASE + "/a").build())) {
      assertThat(r.code()).isEqualTo(200);
    }

    assertThat(sleeps)
        .containsExactly(Duration.ofMillis(102), Duration.ofMillis(306), Duration.ofMillis(660));
    assertThat(sent).hasSize(4);
    assertThat(notices.get(0))
        .isEqualTo(
            "GET configmaps shop/a #2 in 102ms: connection refused (ConnectException: Failed to"
                + " connect to /127.0.0.1:6443)");
  }

  @Test
  void tooManyRequestsWaitsForRetryAfter() throws Exception {
    script.add(answer(429, status(429, "too many requests, please try again later"), "3"));
    script.add(answer(200, "{}"));

    try (Response r = call(retries(10), new Request.Builder().url(BASE + "/a").build())) {
      assertThat(r.code()).isEqualTo(200);
    }

    assertThat(sleeps).containsExactly(Duration.ofSeconds(3));
    assertThat(notices)
        .containsExactly(
            "GET configmaps shop/a #2 in 3000ms: too many requests (HTTP 429: too many requests,"
                + " please try again later)");
  }

  @Test
  void unavailableGatewayAndEtcdLeaderChangesAreRetriedOtherServerErrorsAreNot() throws Exception {
    script.add(answer(503, status(503, "the server is currently unable to handle the request")));
    script.add(answer(504, status(504, "Timeout: request did not complete")));
    script.add(answer(500, status(500, "etcdserver: leader changed")));
    script.add(answer(500, status(500, "Internal error occurred: boom")));

    try (Response r = call(retries(10), new Request.Builder().url(BASE + "/a").build())) {
      assertThat(r.code()).isEqualTo(500);
    }

    assertThat(sent).hasSize(4);
    assertThat(notices)
        .extracting(n -> n.substring(n.indexOf(": ") + 2))
        .containsExactly(
            "unavailable (HTTP 503: the server is currently unable to handle the request)",
            "gateway error (HTTP 504: Timeout: request did not complete)",
            "etcd leader change (HTTP 500: etcdserver: leader changed)");
  }

  @Test
  void clientErrorsAreNeverRetried() throws Exception {
    script.add(answer(409, status(409, "the object has been modified")));

    try (Response r = call(retries(10), new Request.Builder().url(BASE + "/a").build())) {
      assertThat(r.code()).isEqualTo(409);
    }
    assertThat(sent).hasSize(1);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void theLastFailureSurfacesWhenTheTriesAreUsedUp() {
    for (int i = 0; i < 3; i++) {
      script.add(new ConnectException("Failed to connect to /127.0.0.1:6443"));
    }

    assertThatThrownBy(() -> call(retries(3), new Request.Builder().url(BASE + "/a").build()))
        .isInstanceOf(ConnectException.class);
    assertThat(sent).hasSize(3);
    assertThat(sleeps).containsExactly(Duration.ofMillis(102), Duration.ofMillis(306));
  }

  /** ConfigMap a as the first, lost attempt of a create left it: with the request's hash. */
  private static final String LANDED =
      "{\"metadata\":{\"name\":\"a\",\"uid\":\"u1\",\"resourceVersion\":\"7\","
          + "\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}},"
          + "\"data\":{\"k\":\"v\"}}";

  private static Request create(String body) {
    return new Request.Builder().url(BASE).post(RequestBody.create(body, JSON)).build();
  }

  @Test
  void aRetriedCreateThatMeetsItsOwnLandedFirstAttemptSucceeds() throws Exception {
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","
            + "\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}},\"data\":{\"k\":\"v\"}}";
    script.add(new SocketTimeoutException("timeout"));
    script.add(answer(409, status(409, "configmaps \\\"a\\\" already exists")));
    script.add(answer(200, LANDED));

    try (Response r = call(retries(10), create(body))) {
      assertThat(r.code()).isEqualTo(201);
      assertThat(r.body().string()).contains("\"uid\":\"u1\"");
    }
    assertThat(sent)
        .containsExactly(
            "POST /api/v1/namespaces/shop/configmaps",
            "POST /api/v1/namespaces/shop/configmaps",
            "GET /api/v1/namespaces/shop/configmaps/a");
  }

  @Test
  void aCreateRefusedAfterAHiddenAttemptThatLandedSucceedsOnItsOwnObject() throws Exception {
    // OkHttp's own retry of a failed connection sent the create once (it landed, the answer was
    // lost), then met a refused connection: the interceptor sees only the refusal
    String body =
        "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}}}";
    script.add(new ConnectException("Failed to connect to /127.0.0.1:6443"));
    script.add(answer(409, status(409, "configmaps \\\"a\\\" already exists")));
    script.add(
        answer(
            200,
            "{\"metadata\":{\"name\":\"a\",\"uid\":\"u1\","
                + "\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}}}"));

    try (Response r = call(retries(10), create(body))) {
      assertThat(r.code()).isEqualTo(201);
      assertThat(r.body().string()).contains("\"uid\":\"u1\"");
    }
    assertThat(sent)
        .containsExactly(
            "POST /api/v1/namespaces/shop/configmaps",
            "POST /api/v1/namespaces/shop/configmaps",
            "GET /api/v1/namespaces/shop/configmaps/a");
  }

  @Test
  void theReadBackAfterARealConflictAnswerGoesOutOnTheSameClient() throws Exception {
    // a real HTTP server on loopback: OkHttp refuses a new request while the 409's body is open
    String body =
        "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}}}";
    com.sun.net.httpserver.HttpServer server =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          sent.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
          boolean post = exchange.getRequestMethod().equals("POST");
          byte[] answer =
              (post
                      ? status(409, "configmaps \\\"a\\\" already exists")
                      : "{\"metadata\":{\"name\":\"a\",\"uid\":\"u1\",\"annotations\":"
                          + "{\"capstan.dev/content-hash\":\"sha256:1\"}}}")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(post ? 409 : 200, answer.length);
          exchange.getResponseBody().write(answer);
          exchange.close();
        });
    server.start();
    try {
      boolean[] refused = {false};
      OkHttpClient client =
          new OkHttpClient.Builder()
              .addInterceptor(retries(10))
              .addInterceptor(
                  chain -> {
                    if (!refused[0]) {
                      refused[0] = true;
                      throw new ConnectException("Failed to connect to /127.0.0.1:6443");
                    }
                    return chain.proceed(chain.request());
                  })
              .build();
      String url =
          "http://127.0.0.1:"
              + server.getAddress().getPort()
              + "/api/v1/namespaces/shop/configmaps";
      Request create = new Request.Builder().url(url).post(RequestBody.create(body, JSON)).build();

      try (Response r = client.newCall(create).execute()) {
        assertThat(r.code()).isEqualTo(201);
        assertThat(r.body().string()).contains("\"uid\":\"u1\"");
      }
      assertThat(sent)
          .containsExactly(
              "POST /api/v1/namespaces/shop/configmaps",
              "GET /api/v1/namespaces/shop/configmaps/a");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aRetriedCreateThatMeetsSomeoneElsesObjectReportsTheConflict() throws Exception {
    String body =
        "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}}}";
    script.add(new SocketTimeoutException("timeout"));
    script.add(answer(409, status(409, "configmaps \\\"a\\\" already exists")));
    script.add(
        answer(
            200,
            "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"capstan.dev/content-hash\":\"sha256:2\"}}}"));

    try (Response r = call(retries(10), create(body))) {
      assertThat(r.code()).isEqualTo(409);
    }
  }

  private static Request apply(String body) {
    return new Request.Builder()
        .url(BASE + "/a?fieldManager=capstan&force=true")
        .patch(RequestBody.create(body, MediaType.get("application/apply-patch+yaml")))
        .build();
  }

  @Test
  void aRetriedCreatingApplyThatMeetsItsOwnLandedFirstAttemptSucceeds() throws Exception {
    String body =
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\","
            + "\"resourceVersion\":\"18446744073709551615\","
            + "\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}},\"data\":{\"k\":\"v\"}}";
    script.add(new SocketTimeoutException("timeout"));
    script.add(answer(409, status(409, "the object has been modified")));
    script.add(answer(200, LANDED));

    try (Response r = call(retries(10), apply(body))) {
      assertThat(r.code()).isEqualTo(200);
      assertThat(r.body().string()).contains("\"uid\":\"u1\"");
    }
    assertThat(sent)
        .containsExactly(
            "PATCH /api/v1/namespaces/shop/configmaps/a",
            "PATCH /api/v1/namespaces/shop/configmaps/a",
            "GET /api/v1/namespaces/shop/configmaps/a");
  }

  @Test
  void aRetriedCreatingApplyThatMeetsSomeoneElsesObjectReportsTheConflict() throws Exception {
    String body =
        "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"18446744073709551615\","
            + "\"annotations\":{\"capstan.dev/content-hash\":\"sha256:1\"}}}";
    script.add(new SocketTimeoutException("timeout"));
    script.add(answer(409, status(409, "the object has been modified")));
    script.add(
        answer(
            200,
            "{\"metadata\":{\"name\":\"a\",\"annotations\":{\"capstan.dev/content-hash\":\"sha256:2\"}}}"));

    try (Response r = call(retries(10), apply(body))) {
      assertThat(r.code()).isEqualTo(409);
    }
    assertThat(sent)
        .containsExactly(
            "PATCH /api/v1/namespaces/shop/configmaps/a",
            "PATCH /api/v1/namespaces/shop/configmaps/a",
            "GET /api/v1/namespaces/shop/configmaps/a");
  }

  @Test
  void aMergePatchAnswered409AfterATimeoutIsNotReadBack() throws Exception {
    script.add(new SocketTimeoutException("timeout"));
    script.add(answer(409, status(409, "the object has been modified")));
    Request merge =
        new Request.Builder()
            .url(BASE + "/a")
            .patch(
                RequestBody.create(
                    "{\"metadata\":{\"name\":\"a\"}}",
                    MediaType.get("application/merge-patch+json")))
            .build();

    try (Response r = call(retries(10), merge)) {
      assertThat(r.code()).isEqualTo(409);
    }
    assertThat(sent)
        .containsExactly(
            "PATCH /api/v1/namespaces/shop/configmaps/a",
            "PATCH /api/v1/namespaces/shop/configmaps/a");
  }

  @Test
  void aCreateRefusedAtFirstIsNotReadBack() throws Exception {
    script.add(answer(409, status(409, "configmaps \\\"a\\\" already exists")));

    try (Response r = call(retries(10), create("{\"metadata\":{\"name\":\"a\"}}"))) {
      assertThat(r.code()).isEqualTo(409);
    }
    assertThat(sent).containsExactly("POST /api/v1/namespaces/shop/configmaps");
  }
}
