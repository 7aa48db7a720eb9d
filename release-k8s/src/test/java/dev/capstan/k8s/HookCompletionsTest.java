package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.Test;

/**
 * {@link HookCompletions} against a scripted API server whose WATCHes end at their timeout, moving
 * a clock the wait reads: progress after 5 s and then every 30 s, saying what the hook is doing,
 * and a time-out that says it too, with the exact requests.
 */
class HookCompletionsTest {
  private static final MediaType JSON = MediaType.get("application/json");
  private static final ResourceRef SMOKE = ResourceRef.of(Kind.POD, "shop", "smoke");
  private static final ResourceRef MIGRATE = ResourceRef.of(Kind.JOB, "shop", "migrate");
  private static final String UNSCHEDULABLE =
      "{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
          + "\"message\":\"0/2 nodes are available: pod has unbound immediate"
          + " PersistentVolumeClaims.\"}";

  private final AtomicLong clock = new AtomicLong();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Deque<String>> bodies = new ConcurrentHashMap<>();
  private final List<String> progress = new CopyOnWriteArrayList<>();

  private HookCompletions completions() {
    ApiClient client = new ApiClient();
    client.setBasePath("https://127.0.0.1:6443");
    client.setHttpClient(
        new OkHttpClient.Builder()
            .addInterceptor(
                chain -> {
                  HttpUrl url = chain.request().url();
                  boolean watch = "true".equals(url.queryParameter("watch"));
                  String resource = url.pathSegments().get(url.pathSegments().size() - 1);
                  String key = (watch ? "WATCH " : "LIST ") + resource;
                  String timeout = url.queryParameter("timeoutSeconds");
                  requests.add(key + (watch ? " for " + timeout + "s" : ""));
                  if (watch) {
                    clock.addAndGet(TimeUnit.SECONDS.toNanos(Long.parseLong(timeout)));
                  }
                  Deque<String> answers = bodies.get(key);
                  String body = answers == null ? null : answers.pollFirst();
                  return new Response.Builder()
                      .request(chain.request())
                      .protocol(Protocol.HTTP_1_1)
                      .code(200)
                      .message("OK")
                      .body(ResponseBody.create(body == null ? "" : body, JSON))
                      .build();
                })
            .build());
    return new HookCompletions(
        new DynamicApis(KubeClients.fromApiClient(client, "scripted")), clock::get);
  }

  private void answer(String key, String... answers) {
    bodies.computeIfAbsent(key, k -> new ArrayDeque<>()).addAll(List.of(answers));
  }

  private static String list(String... items) {
    return "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"7\"},"
        + "\"items\":["
        + String.join(",", items)
        + "]}";
  }

  private static String pod(String name, String status) {
    return "{\"metadata\":{\"name\":\""
        + name
        + "\",\"namespace\":\"shop\",\"resourceVersion\":\"7\"},\"status\":"
        + status
        + "}";
  }

  @Test
  void aHookPodTheSchedulerHoldsBackIsReportedWhileItWaitsAndNamedWhenItTimesOut() {
    String pending = pod("smoke", "{\"phase\":\"Pending\",\"conditions\":[" + UNSCHEDULABLE + "]}");
    answer("LIST pods", list(pending), list(pending), list(pending), list(pending));

    Readiness done =
        completions().await(SMOKE, Duration.ofSeconds(40), p -> progress.add(p.describe()));

    String why =
        "Pod shop/smoke: Unschedulable: 0/2 nodes are available: pod has unbound immediate"
            + " PersistentVolumeClaims.";
    assertThat(done)
        .isEqualTo(Readiness.timedOut(List.of(SMOKE), Duration.ofSeconds(40), Map.of(SMOKE, why)));
    assertThat(progress)
        .containsExactly(
            "still waiting after 5s for 1 of 1 object(s): " + why,
            "still waiting after 35s for 1 of 1 object(s): " + why);
    // each WATCH ends when the next report or the deadline is due, and a LIST tells the state
    assertThat(requests)
        .containsExactly(
            "LIST pods",
            "WATCH pods for 5s",
            "LIST pods",
            "WATCH pods for 30s",
            "LIST pods",
            "WATCH pods for 5s",
            "LIST pods");
  }

  @Test
  void aHookJobIsReportedWithItsPodsUntilItCompletes() {
    String running =
        "{\"metadata\":{\"name\":\"migrate\",\"namespace\":\"shop\",\"resourceVersion\":\"7\"},"
            + "\"status\":{\"active\":1}}";
    String complete =
        "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
            + "\"metadata\":{\"name\":\"migrate\",\"namespace\":\"shop\",\"resourceVersion\":\"9\"},"
            + "\"status\":{\"succeeded\":1,\"conditions\":[{\"type\":\"Complete\","
            + "\"status\":\"True\"}]}}}\n";
    answer("LIST jobs", list(running), list(running));
    answer("WATCH jobs", "", complete);
    answer(
        "LIST pods",
        list(
            pod(
                "migrate-x7k2p",
                "{\"phase\":\"Pending\",\"conditions\":[" + UNSCHEDULABLE + "]}")));

    Readiness done =
        completions().await(MIGRATE, Duration.ofMinutes(5), p -> progress.add(p.describe()));

    assertThat(done).isEqualTo(Readiness.ready());
    assertThat(progress)
        .containsExactly(
            "still waiting after 5s for 1 of 1 object(s): Job shop/migrate: 0 succeeded, 1"
                + " active, 0 failed; pod migrate-x7k2p: Unschedulable: 0/2 nodes are available:"
                + " pod has unbound immediate PersistentVolumeClaims.");
    assertThat(requests)
        .containsExactly(
            "LIST jobs", "WATCH jobs for 5s", "LIST jobs", "LIST pods", "WATCH jobs for 30s");
  }
}
