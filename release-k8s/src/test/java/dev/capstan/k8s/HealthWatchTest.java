package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import dev.capstan.release.port.ReadinessWait;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.Okio;
import okio.Timeout;
import org.junit.jupiter.api.Test;

/**
 * {@link HealthWatch} against a scripted API server (an OkHttp interceptor answering LISTs and
 * WATCHes) and a clock the script moves: the WATCH starts at the LIST's resourceVersion, a 410 or a
 * watch that ends early LISTs again, a DELETED event is judged by the object's last state, and an
 * object the LIST no longer finds that this adapter wrote is followed from its write's version.
 */
class HealthWatchTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final ResourceRef JOB = ResourceRef.of(Kind.JOB, "shop", "once");
  private static final Duration TIMEOUT = Duration.ofHours(1);

  private final AtomicLong clock = new AtomicLong();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Deque<Answer>> script = new ConcurrentHashMap<>();
  private final List<String> progress = new CopyOnWriteArrayList<>();

  /**
   * Answers held back until the wait has reported progress, by key ({@code WATCH jobs from 104}).
   */
  private final java.util.Set<String> afterProgress = ConcurrentHashMap.newKeySet();

  /** Answers held back until the pods are watched, by key. */
  private final java.util.Set<String> afterPodsWatched = ConcurrentHashMap.newKeySet();

  /** How a scripted WATCH ends after its events. */
  private enum End {
    /** At its timeout: the clock moves on by it. */
    TIMEOUT,
    /** At once, long before its timeout. */
    EARLY,
    /** Never: it stays open until the watch is stopped. */
    OPEN
  }

  /** A scripted answer: a LIST's body, or a WATCH's events and how it ends. */
  private record Answer(String body, End end) {}

  /** A health watch on the script's clock, watching pods at once (no grace). */
  private HealthWatch health() {
    return health(clock::get, Duration.ZERO);
  }

  private HealthWatch health(java.util.function.LongSupplier nanos, Duration podsGrace) {
    ApiClient client = new ApiClient();
    client.setBasePath("https://127.0.0.1:6443");
    client.setHttpClient(new OkHttpClient.Builder().addInterceptor(this::serve).build());
    return new HealthWatch(
        new DynamicApis(KubeClients.fromApiClient(client, "scripted")),
        nanos,
        millis -> true,
        podsGrace);
  }

  private Readiness await(HealthWatch health) {
    return health.await(
        List.of(JOB), ReadinessWait.of(TIMEOUT).withProgress(p -> progress.add(p.describe())));
  }

  private Response serve(Interceptor.Chain chain) throws IOException {
    Request r = chain.request();
    HttpUrl url = r.url();
    List<String> segments = url.pathSegments();
    String resource = segments.get(segments.size() - 1);
    boolean watch = "true".equals(url.queryParameter("watch"));
    StringBuilder line = new StringBuilder(watch ? "WATCH " : "LIST ").append(resource);
    String rv = url.queryParameter("resourceVersion");
    if (rv != null) {
      line.append(" from ").append(rv);
    }
    String field = url.queryParameter("fieldSelector");
    if (field != null) {
      line.append(" ").append(field);
    }
    String labels = url.queryParameter("labelSelector");
    if (labels != null) {
      line.append(" labels ").append(labels);
    }
    requests.add(line.toString());
    String key =
        watch ? "WATCH " + resource + " from " + (rv == null ? "none" : rv) : "LIST " + resource;
    if (afterProgress.contains(key)) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (progress.isEmpty() && System.nanoTime() < until) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("stopped");
        }
      }
    }
    if (afterPodsWatched.contains(key)) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (requests.stream().noneMatch(l -> l.startsWith("WATCH pods"))
          && System.nanoTime() < until) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("stopped");
        }
      }
    }
    Deque<Answer> answers = script.get(key);
    Answer next = answers == null ? null : answers.pollFirst();
    if (next == null) {
      try {
        Thread.sleep(TimeUnit.SECONDS.toMillis(30)); // an open watch with nothing to say
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("stopped");
      }
      throw new IOException("script exhausted");
    }
    if (watch && next.end() == End.TIMEOUT) {
      String timeout = url.queryParameter("timeoutSeconds");
      clock.addAndGet(TimeUnit.SECONDS.toNanos(Long.parseLong(String.valueOf(timeout))));
    }
    ResponseBody body =
        watch && next.end() == End.OPEN
            ? ResponseBody.create(Okio.buffer(new StaysOpen(next.body())), JSON, -1)
            : ResponseBody.create(next.body(), JSON);
    return new Response.Builder()
        .request(r)
        .protocol(Protocol.HTTP_1_1)
        .code(200)
        .message("OK")
        .body(body)
        .build();
  }

  /** A body that gives its bytes, then blocks until its reader is interrupted. */
  private static final class StaysOpen implements okio.Source {
    private final Buffer bytes = new Buffer();

    StaysOpen(String text) {
      bytes.writeUtf8(text);
    }

    @Override
    public long read(Buffer sink, long byteCount) throws IOException {
      if (bytes.size() > 0) {
        return bytes.read(sink, Math.min(byteCount, bytes.size()));
      }
      try {
        Thread.sleep(TimeUnit.SECONDS.toMillis(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new InterruptedIOException("the watch was closed");
    }

    @Override
    public Timeout timeout() {
      return Timeout.NONE;
    }

    @Override
    public void close() {
      Thread.currentThread(); // nothing to release
    }
  }

  private void list(String resource, String version, String... items) {
    String body =
        "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
            + version
            + "\"},\"items\":["
            + String.join(",", items)
            + "]}";
    script
        .computeIfAbsent("LIST " + resource, k -> new ArrayDeque<>())
        .add(new Answer(body, End.TIMEOUT));
  }

  private void watch(String resource, String from, End end, String... events) {
    StringBuilder body = new StringBuilder();
    for (String e : events) {
      body.append(e).append('\n');
    }
    script
        .computeIfAbsent("WATCH " + resource + " from " + from, k -> new ArrayDeque<>())
        .add(new Answer(body.toString(), end));
  }

  private static String event(String type, String object) {
    return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
  }

  private static String gone() {
    return "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
        + "\"status\":\"Failure\",\"message\":\"too old resource version: 100 (250)\","
        + "\"reason\":\"Expired\",\"code\":410}}";
  }

  /** The Job, running or complete, maybe being deleted, at resourceVersion {@code rv}. */
  private static String job(String rv, boolean complete, boolean deleting) {
    return "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"once\","
        + "\"namespace\":\"shop\",\"uid\":\"uid-1\",\"resourceVersion\":\""
        + rv
        + "\""
        + (deleting
            ? ",\"deletionTimestamp\":\"2026-01-01T00:00:01Z\","
                + "\"finalizers\":[\"foregroundDeletion\"]"
            : "")
        + "},\"spec\":{\"ttlSecondsAfterFinished\":0},\"status\":"
        + (complete
            ? "{\"succeeded\":1,\"conditions\":[{\"type\":\"SuccessCriteriaMet\",\"status\":"
                + "\"True\"},{\"type\":\"Complete\",\"status\":\"True\"}]}"
            : "{\"active\":1}")
        + "}";
  }

  private static final ResourceRef WEB = ResourceRef.of(Kind.DEPLOYMENT, "shop", "web");

  /**
   * Deployment {@code web} of one replica at generation 2 and resourceVersion {@code rv}: rolled
   * out ({@code observedGeneration} 2, its replica updated and available), or not yet observed.
   */
  private static String deployment(String rv, boolean rolledOut) {
    return "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
        + "\"namespace\":\"shop\",\"uid\":\"uid-3\",\"generation\":2,\"resourceVersion\":\""
        + rv
        + "\"},\"spec\":{\"replicas\":1,\"selector\":{\"matchLabels\":{\"app\":\"web\"}}},"
        + "\"status\":"
        + (rolledOut
            ? "{\"observedGeneration\":2,\"replicas\":1,\"updatedReplicas\":1,"
                + "\"availableReplicas\":1,\"readyReplicas\":1}"
            : "{\"observedGeneration\":1,\"replicas\":1,\"availableReplicas\":1}")
        + "}";
  }

  private static com.google.gson.JsonObject parsed(String json) {
    return JsonParser.parseString(json).getAsJsonObject();
  }

  @Test
  void aWorkloadJustWrittenIsFollowedFromItsWriteWithoutAList() {
    HealthWatch health = health();
    health.written(WEB, "7", parsed(deployment("7", false)));
    watch("deployments", "7", End.OPEN, event("MODIFIED", deployment("8", true)));

    assertThat(health.await(List.of(WEB), ReadinessWait.of(TIMEOUT).withWritten(Set.of(WEB))))
        .isEqualTo(Readiness.ready());
    // its state as of the write is the answer to it: no LIST; its events since, by name
    assertThat(of("deployments")).containsExactly("WATCH deployments from 7 metadata.name=web");
  }

  @Test
  void aWorkloadCurrentAsItsWriteWasAnsweredIsNotReadAtAll() {
    HealthWatch health = health();
    health.written(WEB, "7", parsed(deployment("7", true)));

    assertThat(health.await(List.of(WEB), ReadinessWait.of(TIMEOUT).withWritten(Set.of(WEB))))
        .isEqualTo(Readiness.ready());
    assertThat(requests).isEmpty();

    // not said to be just written: listed, as any other object
    list("deployments", "9", deployment("9", true));
    assertThat(health.await(List.of(WEB), ReadinessWait.of(TIMEOUT))).isEqualTo(Readiness.ready());
    assertThat(requests).containsExactly("LIST deployments metadata.name=web");
  }

  @Test
  void twoWorkloadsOfOneNamespaceAreListedTogetherEvenWhenJustWritten() {
    ResourceRef api = ResourceRef.of(Kind.DEPLOYMENT, "shop", "api");
    HealthWatch health = health();
    health.written(WEB, "7", parsed(deployment("7", true)));
    health.written(api, "8", parsed(deployment("8", true).replace("\"web\"", "\"api\"")));
    list(
        "deployments",
        "9",
        deployment("7", true),
        deployment("8", true).replace("\"web\"", "\"api\""));

    assertThat(
            health.await(
                List.of(WEB, api), ReadinessWait.of(TIMEOUT).withWritten(Set.of(WEB, api))))
        .isEqualTo(Readiness.ready());
    // one LIST for both rather than a WATCH each
    assertThat(requests).containsExactly("LIST deployments");
  }

  @Test
  void aRolloutDoneWithinTheGraceHasNoPodsWatched() {
    HealthWatch health = graced(clock::get); // the clock stays within the grace
    health.written(WEB, "7", parsed(deployment("7", false)));
    watch("deployments", "7", End.OPEN, event("MODIFIED", deployment("8", true)));

    assertThat(health.await(List.of(WEB), ReadinessWait.of(TIMEOUT).withWritten(Set.of(WEB))))
        .isEqualTo(Readiness.ready());
    assertThat(requests).containsExactly("WATCH deployments from 7 metadata.name=web");
  }

  @Test
  void aRolloutStillInProgressAfterTheGraceHasItsPodsWatched() {
    // the clock moves half a second each time it is read: the grace passes
    HealthWatch health = graced(() -> clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(500)));
    health.written(WEB, "7", parsed(deployment("7", false)));
    watch("deployments", "7", End.OPEN, event("MODIFIED", deployment("8", true)));
    afterPodsWatched.add("WATCH deployments from 7"); // the rollout ends once its pods are watched

    assertThat(health.await(List.of(WEB), ReadinessWait.of(TIMEOUT).withWritten(Set.of(WEB))))
        .isEqualTo(Readiness.ready());
    assertThat(requests)
        .containsExactlyInAnyOrder(
            "WATCH deployments from 7 metadata.name=web", "WATCH pods labels app=web");
  }

  /** A health watch with the default grace before pods are watched, on {@code nanos}. */
  private HealthWatch graced(java.util.function.LongSupplier nanos) {
    return health(nanos, HealthWatch.PODS_GRACE);
  }

  private List<String> of(String resource) {
    List<String> out = new ArrayList<>();
    for (String r : requests) {
      if (r.startsWith("LIST " + resource + " ")
          || r.startsWith("WATCH " + resource + " ")
          || r.equals("WATCH " + resource)) {
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void theWatchStartsAtTheListsVersionSoAJobCompletedInBetweenIsSeen() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.OPEN, event("MODIFIED", job("101", true, false)));

    assertThat(await(health())).isEqualTo(Readiness.ready());

    assertThat(of("jobs"))
        .containsExactly("LIST jobs metadata.name=once", "WATCH jobs from 100 metadata.name=once");
    assertThat(of("pods")).isSubsetOf("WATCH pods");
  }

  @Test
  void theOneWorkloadInProgressInItsNamespaceHasOnlyItsPodsWatched() {
    String selected =
        job("100", false, false)
            .replace(
                "\"spec\":{",
                "\"spec\":{\"selector\":{\"matchLabels\":"
                    + "{\"batch.kubernetes.io/controller-uid\":\"uid-1\"}},");
    list("jobs", "100", selected);
    watch("jobs", "100", End.OPEN, event("MODIFIED", job("101", true, false)));
    afterPodsWatched.add("WATCH jobs from 100");

    assertThat(await(health())).isEqualTo(Readiness.ready());

    assertThat(of("pods"))
        .containsExactly("WATCH pods labels batch.kubernetes.io/controller-uid=uid-1");
  }

  /** A Service, {@code type} LoadBalancer with or without an address, or ClusterIP. */
  private static String service(String type, boolean address) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"edge\","
        + "\"namespace\":\"shop\",\"uid\":\"uid-2\",\"resourceVersion\":\"5\"},"
        + "\"spec\":{\"type\":\""
        + type
        + "\"},\"status\":{\"loadBalancer\":{"
        + (address ? "\"ingress\":[{\"ip\":\"127.0.0.1\"}]" : "")
        + "}}}";
  }

  @Test
  void aServiceJustWrittenAndCurrentAsAnsweredIsNotReadAgain() {
    ResourceRef edge = ResourceRef.of(Kind.SERVICE, "shop", "edge");
    HealthWatch health = health();
    health.written(
        edge, "5", JsonParser.parseString(service("ClusterIP", false)).getAsJsonObject());

    assertThat(health.await(List.of(edge), ReadinessWait.of(TIMEOUT).withWritten(Set.of(edge))))
        .isEqualTo(Readiness.ready());
    assertThat(requests).isEmpty();

    // not said to be just written: read as any other object
    list("services", "6", service("ClusterIP", false));
    assertThat(health.await(List.of(edge), ReadinessWait.of(TIMEOUT))).isEqualTo(Readiness.ready());
    assertThat(requests).containsExactly("LIST services metadata.name=edge");
  }

  @Test
  void aLoadBalancerWrittenWithoutAnAddressIsReadWhileTheWaitWantsOne() {
    ResourceRef edge = ResourceRef.of(Kind.SERVICE, "shop", "edge");
    HealthWatch health = health();
    health.written(
        edge, "5", JsonParser.parseString(service("LoadBalancer", false)).getAsJsonObject());
    list("services", "6", service("LoadBalancer", true));

    assertThat(health.await(List.of(edge), ReadinessWait.of(TIMEOUT).withWritten(Set.of(edge))))
        .isEqualTo(Readiness.ready());
    assertThat(requests).containsExactly("LIST services metadata.name=edge");

    requests.clear();
    assertThat(
            health.await(
                List.of(edge),
                ReadinessWait.of(TIMEOUT).withWaitForLoadBalancer(false).withWritten(Set.of(edge))))
        .isEqualTo(Readiness.ready());
    assertThat(requests).isEmpty();
  }

  @Test
  void aWatchEndedAtItsTimeoutResumesFromItsLastEventAndProgressIsReported() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.TIMEOUT, event("MODIFIED", job("104", false, false)));
    watch("jobs", "104", End.OPEN, event("MODIFIED", job("109", true, false)));
    afterProgress.add("WATCH jobs from 104");

    assertThat(await(health())).isEqualTo(Readiness.ready());

    assertThat(of("jobs"))
        .containsExactly(
            "LIST jobs metadata.name=once",
            "WATCH jobs from 100 metadata.name=once",
            "WATCH jobs from 104 metadata.name=once");
    assertThat(progress)
        .first()
        .isEqualTo(
            "still waiting after 5m for 1 of 1 object(s): Job shop/once: 0 succeeded, 1 active, 0"
                + " failed");
  }

  @Test
  void aJobItsTtlDeletedIsHealthyFromTheLastStateOfItsDeletedEvent() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.OPEN, event("DELETED", job("105", true, true)));

    assertThat(await(health())).isEqualTo(Readiness.ready());
  }

  @Test
  void aJobDeletedBeforeItWasDoneFailsAtOnceSayingSo() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.OPEN, event("DELETED", job("105", false, true)));

    assertThat(await(health()))
        .isEqualTo(
            Readiness.failed(
                JOB,
                "Job shop/once: deleted before it was healthy; last seen: 0 succeeded, 1 active, 0"
                    + " failed"));
  }

  @Test
  void aGoneErrorListsAgainAndWatchesFromThatListsVersion() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.OPEN, gone());
    list("jobs", "205", job("200", false, false));
    watch("jobs", "205", End.OPEN, event("MODIFIED", job("206", true, false)));

    assertThat(await(health())).isEqualTo(Readiness.ready());

    assertThat(of("jobs"))
        .containsExactly(
            "LIST jobs metadata.name=once",
            "WATCH jobs from 100 metadata.name=once",
            "LIST jobs metadata.name=once",
            "WATCH jobs from 205 metadata.name=once");
  }

  @Test
  void aRelistOfSeveralNamesKeepsThoseAndJudgesThemByIt() {
    ResourceRef twice = ResourceRef.of(Kind.JOB, "shop", "twice");
    String other = job("101", false, false).replace("\"once\"", "\"other\"");
    list(
        "jobs",
        "100",
        job("100", false, false),
        job("100", false, false).replace("\"once\"", "\"twice\""),
        other);
    watch("jobs", "100", End.OPEN, gone());
    list(
        "jobs",
        "205",
        job("200", true, false),
        other,
        job("201", true, false).replace("\"once\"", "\"twice\""));
    watch("jobs", "205", End.OPEN);

    assertThat(health().await(List.of(JOB, twice), ReadinessWait.of(TIMEOUT)))
        .isEqualTo(Readiness.ready());
    // the namespace's Jobs, listed again after the 410 ("other" read past); the pods' WATCH runs
    // on its own thread, in any order with these, and the last WATCH may be stopped before it is
    // sent
    assertThat(
            requests.stream().filter(r -> r.startsWith("LIST jobs") || r.startsWith("WATCH jobs")))
        .startsWith("LIST jobs", "WATCH jobs from 100", "LIST jobs");
  }

  @Test
  void aJobGoneFromTheNewListIsJudgedByItsLastStateSeen() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.OPEN, gone());
    list("jobs", "300");

    assertThat(await(health()))
        .isEqualTo(
            Readiness.failed(
                JOB,
                "Job shop/once: deleted before it was healthy; last seen: 0 succeeded, 1 active, 0"
                    + " failed"));
  }

  @Test
  void aWatchThatEndsEarlyListsAgain() {
    list("jobs", "100", job("100", false, false));
    watch("jobs", "100", End.EARLY);
    list("jobs", "120", job("118", true, false));

    assertThat(await(health())).isEqualTo(Readiness.ready());

    List<String> jobs = of("jobs");
    assertThat(jobs)
        .startsWith(
            "LIST jobs metadata.name=once",
            "WATCH jobs from 100 metadata.name=once",
            "LIST jobs metadata.name=once");
    // the watch may have reopened, from the new list's version, before it was stopped
    assertThat(jobs.subList(3, jobs.size())).isSubsetOf("WATCH jobs from 120 metadata.name=once");
  }

  @Test
  void aJobThisAdapterWroteThatTheListNoLongerFindsIsFollowedFromItsWrite() {
    HealthWatch health = health();
    health.written(JOB, "50", null);
    list("jobs", "100");
    watch(
        "jobs",
        "50",
        End.OPEN,
        event("MODIFIED", job("51", true, false)),
        event("MODIFIED", job("52", true, true)),
        event("DELETED", job("53", true, true)));

    assertThat(await(health)).isEqualTo(Readiness.ready());

    assertThat(of("jobs"))
        .containsExactly("LIST jobs metadata.name=once", "WATCH jobs from 50 metadata.name=once");
  }

  @Test
  void aJobTheListDoesNotFindFailsAtOnceUnlessThisAdapterWroteIt() {
    list("jobs", "100");

    assertThat(await(health())).isEqualTo(Readiness.failed(JOB, "Job shop/once: not found"));
    assertThat(requests).containsExactly("LIST jobs metadata.name=once");
  }

  @Test
  void aJobWrittenLongerAgoThanTheServerKeepsFailsAsNotFound() {
    HealthWatch health = health();
    health.written(JOB, "50", null);
    list("jobs", "100");
    watch("jobs", "50", End.OPEN, gone());
    list("jobs", "250");

    assertThat(await(health))
        .isEqualTo(
            Readiness.failed(
                JOB,
                "Job shop/once: not found (deleted since it was applied; its last state is not"
                    + " known)"));
  }
}
