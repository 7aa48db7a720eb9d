package dev.capstan.k8s;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.Backoff;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.Sleeper;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import org.jspecify.annotations.Nullable;

/**
 * Retries of API requests that failed for a reason that passes, at the HTTP call, below every
 * adapter (so the orchestrator's writes, the store's records and the lease are all covered, and the
 * request counter counts every attempt). See ARCHITECTURE.md, "Leases and retries".
 *
 * <p><b>What is retried.</b> A request that was certainly not processed is retried whatever its
 * method: connection refused, 429 Too Many Requests (after its {@code Retry-After}, within the
 * budget), 503 Service Unavailable, and a 500 whose message is an etcd leader change ({@code
 * etcdserver: leader changed}, {@code etcdserver: no leader}, {@code etcdserver: too many
 * requests}). A request whose outcome is unknown (connection reset, timeout, 502, 504, {@code
 * etcdserver: request timed out}) is retried too, because every write Capstan sends is idempotent
 * or conditioned: a server-side apply gives the same object twice, an update carries the
 * resourceVersion it read, a delete its preconditions.
 *
 * <p><b>A retry that meets its own first attempt.</b> When an attempt whose outcome is unknown (for
 * a write, any transport error: a refused attempt may follow one that OkHttp sent and retried on
 * its own) is followed by a create answered 409 AlreadyExists, or an update or server-side apply
 * (whose resourceVersion precondition, or a create's, the first attempt spent) answered 409
 * Conflict, the first attempt may have landed. The object is then read once: if it holds everything
 * the request sent (labels, annotations, and every top-level field but {@code metadata} and {@code
 * status}, which carry Capstan's stamp with its revision and content hash, or a lease's holder and
 * times), the write is ours and the read object is returned as the write's success; otherwise the
 * 409 is returned and the caller reports the conflict. A server that normalised a sent value makes
 * the match fail: the error is then reported, never a success that did not happen.
 *
 * <p>Retries pause by a {@link Backoff} (default 200 ms doubling to 5 s with jitter, at most 10
 * tries within 30 s of pauses), so an API server down for 15 s is ridden out; a listener hears of
 * every retry (the CLI prints it).
 */
final class Retries implements Interceptor {
  /** Read only to judge a conflict or a refusal: built on first need, not at a CLI's start-up. */
  private static final class Json {
    static final ObjectMapper MAPPER = JsonMappers.trees();
  }

  private static final Set<String> LEADER_CHANGES =
      Set.of(
          "etcdserver: leader changed", "etcdserver: no leader", "etcdserver: too many requests");

  /** Hears of each retry before its pause. */
  @FunctionalInterface
  interface Listener {
    /**
     * A request is retried.
     *
     * @param request e.g. {@code PUT secrets shop/sh.capstan.release.v1.web.v2}
     * @param attempt the number of the coming attempt (2 for the first retry)
     * @param delay the pause before it
     * @param reason why the last attempt failed
     */
    void retrying(String request, int attempt, Duration delay, String reason);
  }

  private final Backoff backoff;
  private final Sleeper sleeper;
  private volatile Listener listener;

  Retries(Backoff backoff, Sleeper sleeper, Listener listener) {
    this.backoff = requireNonNull(backoff, "backoff");
    this.sleeper = requireNonNull(sleeper, "sleeper");
    this.listener = requireNonNull(listener, "listener");
  }

  void listener(Listener listener) {
    this.listener = requireNonNull(listener, "listener");
  }

  /** Why an attempt failed, and whether it may have been processed. */
  record Verdict(boolean retry, boolean ambiguous, String reason, Duration retryAfter) {
    static final Verdict FINAL = new Verdict(false, false, "", Duration.ZERO);
  }

  /** The verdict on a transport error. */
  static Verdict classify(IOException e) {
    String what = e.getClass().getSimpleName() + ": " + e.getMessage();
    if (e instanceof InterruptedIOException && !(e instanceof SocketTimeoutException)) {
      return Verdict.FINAL; // the caller was interrupted: stop
    }
    if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
      return new Verdict(true, false, "connection refused (" + what + ")", Duration.ZERO);
    }
    if (e instanceof SocketTimeoutException) {
      return new Verdict(true, true, "timed out (" + what + ")", Duration.ZERO);
    }
    if (e instanceof SocketException || e instanceof EOFException) {
      return new Verdict(true, true, "connection reset (" + what + ")", Duration.ZERO);
    }
    String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    if (m.contains("unexpected end of stream")
        || m.contains("connection reset")
        || m.contains("stream was reset")
        || m.contains("failed to connect")) {
      return new Verdict(true, !m.contains("failed to connect"), what, Duration.ZERO);
    }
    return Verdict.FINAL;
  }

  /**
   * The verdict on a response.
   *
   * @param status the HTTP status
   * @param retryAfter the {@code Retry-After} header, or {@code null}
   * @param message the Status message of the body, or empty
   */
  static Verdict classify(int status, @Nullable String retryAfter, String message) {
    Duration after = Duration.ZERO;
    if (retryAfter != null) {
      try {
        after = Duration.ofSeconds(Math.max(0, Long.parseLong(retryAfter.strip())));
      } catch (NumberFormatException e) {
        after = Duration.ZERO; // an HTTP date: fall back to the backoff
      }
    }
    String text = "HTTP " + status + (message.isEmpty() ? "" : ": " + message);
    if (status == 429) {
      return new Verdict(true, false, "too many requests (" + text + ")", after);
    }
    if (status == 503) {
      return new Verdict(true, false, "unavailable (" + text + ")", after);
    }
    if (status == 500) {
      for (String leader : LEADER_CHANGES) {
        if (message.contains(leader)) {
          return new Verdict(true, false, "etcd leader change (" + text + ")", after);
        }
      }
      if (message.contains("etcdserver: request timed out")) {
        return new Verdict(true, true, "etcd timed out (" + text + ")", after);
      }
      return Verdict.FINAL;
    }
    if (status == 502 || status == 504) {
      return new Verdict(true, true, "gateway error (" + text + ")", after);
    }
    return Verdict.FINAL;
  }

  /** The tag of a request sent once, never retried ({@code KubeClients.serverVersion}). */
  enum Once {
    /** The one value. */
    INSTANCE
  }

  /** The tag value of a request sent once. */
  static final Once ONCE = Once.INSTANCE;

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (request.tag(Once.class) != null) {
      return chain.proceed(request);
    }
    Duration paused = Duration.ZERO;
    boolean unknownOutcome = false;
    for (int attempt = 1; ; attempt++) {
      Verdict verdict;
      Response response = null;
      IOException error = null;
      try {
        response = chain.proceed(request);
      } catch (IOException e) {
        error = e;
      }
      if (response != null) {
        int code = response.code();
        if (code == 409 && unknownOutcome && isWrite(request)) {
          // the read-back is a new request on this call: OkHttp refuses it while the 409's body
          // is open, so the 409 is kept in memory and closed first
          response = buffered(response);
          Response ours = ownEarlierWrite(chain, request, response);
          if (ours != null) {
            return ours;
          }
        }
        if (code < 429) {
          return response;
        }
        verdict = classify(code, response.header("Retry-After"), statusMessage(response));
        if (!verdict.retry()) {
          return response;
        }
      } else {
        verdict = classify(requireNonNull(error));
        if (!verdict.retry()) {
          throw error;
        }
      }
      Duration delay = backoff.next(attempt, paused);
      if (delay != null && verdict.retryAfter().compareTo(delay) > 0) {
        delay =
            paused.plus(verdict.retryAfter()).compareTo(backoff.budget()) > 0
                ? null
                : verdict.retryAfter();
      }
      if (delay == null) {
        if (response != null) {
          return response;
        }
        throw requireNonNull(error);
      }
      if (response != null) {
        response.close();
      }
      // a write that failed in transport has an unknown outcome even when this attempt was
      // refused: OkHttp's own retry of a failed connection (retryOnConnectionFailure) may have sent
      // it once already, and that hidden attempt may have landed (seen with the API server killed
      // mid-create: the retry met its own object and reported it as someone else's)
      unknownOutcome |= verdict.ambiguous() || (error != null && isWrite(request));
      listener.retrying(describe(request), attempt + 1, delay, verdict.reason());
      try {
        sleeper.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException stop = new InterruptedIOException("interrupted between retries");
        stop.initCause(e);
        throw stop;
      }
      paused = paused.plus(delay);
    }
  }

  /** The response with its body read into memory and the original closed. */
  private static Response buffered(Response response) throws IOException {
    try (response) {
      ResponseBody body = response.body();
      if (body == null) {
        return response.newBuilder().build();
      }
      return response
          .newBuilder()
          .body(ResponseBody.create(body.bytes(), body.contentType()))
          .build();
    }
  }

  private static boolean isWrite(Request request) {
    return request.method().equals("POST")
        || request.method().equals("PUT")
        || (request.method().equals("PATCH") && isApply(request));
  }

  /** A server-side apply: its body is the whole object Capstan sets, so it can be matched. */
  private static boolean isApply(Request request) {
    RequestBody body = request.body();
    MediaType type = body == null ? null : body.contentType();
    return type != null
        && (type.type() + "/" + type.subtype()).equals("application/apply-patch+yaml");
  }

  /**
   * After a 409 that may be the effect of our own earlier attempt: the object as read, as a success
   * of the write, when it holds everything the request sent; else {@code null}.
   */
  private static @Nullable Response ownEarlierWrite(Chain chain, Request request, Response conflict)
      throws IOException {
    RequestBody body = request.body();
    if (body == null) {
      return null;
    }
    Buffer buffer = new Buffer();
    body.writeTo(buffer);
    JsonNode sent;
    try {
      sent = Json.MAPPER.readTree(buffer.readByteArray());
    } catch (IOException e) {
      return null;
    }
    String name = sent.path("metadata").path("name").asText("");
    if (name.isEmpty()) {
      return null;
    }
    okhttp3.HttpUrl url =
        request.method().equals("POST")
            ? request.url().newBuilder().addPathSegment(name).query(null).build()
            : request.url().newBuilder().query(null).build();
    Request get = new Request.Builder().url(url).headers(request.headers()).get().build();
    try (Response live = chain.proceed(get)) {
      ResponseBody liveBody = live.body();
      if (live.code() != 200 || liveBody == null) {
        return null;
      }
      byte[] bytes = liveBody.bytes();
      if (!holds(Json.MAPPER.readTree(bytes), sent)) {
        return null;
      }
      conflict.close();
      MediaType type = liveBody.contentType();
      return live.newBuilder()
          .request(request)
          .code(request.method().equals("POST") ? 201 : 200)
          .message("retried write had landed")
          .body(ResponseBody.create(bytes, type))
          .build();
    }
  }

  /** Whether {@code live} holds what {@code sent} set (see the class comment). */
  static boolean holds(JsonNode live, JsonNode sent) {
    for (String field : new String[] {"labels", "annotations"}) {
      if (!contains(live.path("metadata").path(field), sent.path("metadata").path(field))) {
        return false;
      }
    }
    for (Map.Entry<String, JsonNode> f : sent.properties()) {
      String k = f.getKey();
      if (k.equals("metadata")
          || k.equals("status")
          || k.equals("apiVersion")
          || k.equals("kind")) {
        continue;
      }
      if (!contains(live.path(k), f.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static boolean contains(JsonNode live, JsonNode sent) {
    if (sent.isMissingNode() || sent.isNull()) {
      return true;
    }
    if (sent.isObject()) {
      if (!live.isObject()) {
        return false;
      }
      for (Map.Entry<String, JsonNode> e : sent.properties()) {
        if (!contains(live.path(e.getKey()), e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (sent.isArray()) {
      if (!live.isArray() || live.size() != sent.size()) {
        return false;
      }
      for (int i = 0; i < sent.size(); i++) {
        if (!contains(live.get(i), sent.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (sent.isNumber() && live.isNumber()) {
      return sent.decimalValue().compareTo(live.decimalValue()) == 0;
    }
    return sent.equals(live);
  }

  private static String statusMessage(Response response) {
    try {
      String text = response.peekBody(64 * 1024).string();
      JsonNode status = Json.MAPPER.readTree(text);
      return status.path("kind").asText("").equals("Status")
          ? status.path("message").asText("")
          : "";
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  private static String describe(Request request) {
    return RequestCounter.describe(request.method(), request.url()).line();
  }
}
