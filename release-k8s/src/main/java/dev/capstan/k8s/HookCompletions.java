package dev.capstan.k8s;

import dev.capstan.common.health.Condition;
import dev.capstan.common.health.Health;
import dev.capstan.common.health.HealthRules;
import dev.capstan.common.health.PodFailure;
import dev.capstan.release.health.WaveHealth;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Waits for a hook's Job or Pod to run to completion, by watching it: one LIST of it (by name, for
 * its state and the version to watch from) and, while it is running, a WATCH from that version
 * until it succeeds or fails; a watch the server ends is followed by a new LIST. A Job is done at
 * its {@code Complete} (or {@code SuccessCriteriaMet}) condition and failed at {@code Failed}; a
 * Pod at phase {@code Succeeded} or {@code Failed}. A failed Job's reason names its condition and
 * its failing pod (one LIST of its pods by the {@code batch.kubernetes.io/job-name} label), judged
 * by {@link PodFailure#ofFinished}.
 *
 * <p>While it runs, progress is reported {@link WaveHealth#FIRST_PROGRESS} after the start and then
 * every {@link WaveHealth#QUIET_PROGRESS}: each WATCH lasts until the next report is due, and the
 * LIST after it tells what the hook is doing, by the health rules ({@code Pod shop/smoke:
 * Unschedulable: ...}; a Job with its pods, one more LIST: {@code Job shop/migrate: 0 succeeded, 1
 * active, 0 failed; pod migrate-x: Unschedulable: ...}). A time-out says the same of its last
 * state.
 */
final class HookCompletions {
  private static final long MAX_WATCH_SECONDS = 300;

  private final DynamicApis apis;
  private final LongSupplier nanos;

  HookCompletions(DynamicApis apis) {
    this(apis, System::nanoTime);
  }

  /** Hook completions on a given clock (for tests). */
  HookCompletions(DynamicApis apis, LongSupplier nanos) {
    this.apis = apis;
    this.nanos = nanos;
  }

  Readiness await(ResourceRef ref, Duration timeout, Consumer<Readiness.Progress> progress) {
    long start = nanos.getAsLong();
    long deadline = start + Math.max(0, timeout.toNanos());
    long report = start + WaveHealth.FIRST_PROGRESS.toNanos();
    Discovery.Resource resource =
        apis.resolve(ref.kind())
            .orElseThrow(() -> new IllegalStateException("not served: " + ref.kind().key()));
    DynamicApis.Api api = apis.api(resource);
    String field = "metadata.name=" + ref.name();
    while (true) {
      ResourceApi.Listing<com.google.gson.JsonObject> listed =
          api.calls.listingRaw(ref.namespace(), null, field);
      if (listed.items().isEmpty()) {
        return Readiness.failed(ref, "it is gone (deleted before it completed)");
      }
      Map<String, Object> object = JsonTrees.toJava(api.typed(listed.items().get(0)));
      Readiness done = judge(ref, object);
      if (done != null) {
        return done;
      }
      long now = nanos.getAsLong();
      if (deadline - now <= 0) {
        return Readiness.timedOut(List.of(ref), timeout, Map.of(ref, running(ref, object)));
      }
      if (report - now <= 0) {
        progress.accept(
            new Readiness.Progress(
                Duration.ofNanos(now - start), 1, List.of(ref), Map.of(ref, running(ref, object))));
        report = now + WaveHealth.QUIET_PROGRESS.toNanos();
      }
      long seconds = TimeUnit.NANOSECONDS.toSeconds(Math.min(deadline, report) - now);
      ListOptions options =
          new ListOptions()
              .timeoutSeconds((int) Math.max(1, Math.min(MAX_WATCH_SECONDS, seconds)))
              .fieldSelector(field);
      if (listed.resourceVersion() != null) {
        options.setResourceVersion(listed.resourceVersion());
      }
      Watchable<DynamicKubernetesObject> watch = api.calls.watch(ref.namespace(), options);
      try {
        for (Watch.Response<DynamicKubernetesObject> r : watch) {
          if ("ERROR".equals(r.type)) {
            break; // e.g. 410 Gone: list again
          }
          if ("DELETED".equals(r.type)) {
            return Readiness.failed(ref, "it is gone (deleted before it completed)");
          }
          if (r.object != null) {
            Readiness seen = judge(ref, JsonTrees.toJava(r.object.getRaw()));
            if (seen != null) {
              return seen;
            }
          }
        }
      } catch (RuntimeException e) {
        if (!(e.getCause() instanceof IOException)) {
          throw e;
        }
      } finally {
        close(watch);
      }
    }
  }

  /** Done (ready or failed) as the object shows it, or {@code null} while it runs. */
  private @Nullable Readiness judge(ResourceRef ref, Map<String, Object> object) {
    if (ref.kind().equals(Kind.POD)) {
      String phase = dev.capstan.common.Trees.text(object, "status", "phase");
      if (phase.equals("Succeeded")) {
        return Readiness.ready();
      }
      PodFailure failure = PodFailure.ofFinished(object);
      return failure == null ? null : Readiness.failed(ref, "pod: " + failure.explain());
    }
    List<Condition> conditions = Condition.of(object);
    if (Condition.has(conditions, "Complete", "True")
        || Condition.has(conditions, "SuccessCriteriaMet", "True")) {
      return Readiness.ready();
    }
    Condition failed = Condition.find(conditions, "Failed");
    if (failed == null || !failed.status().equals("True")) {
      return null;
    }
    String why =
        "Job failed: "
            + failed.reason()
            + (failed.message().isEmpty() ? "" : ": " + failed.message());
    return Readiness.failed(ref, why + failingPod(ref));
  }

  /**
   * What the hook's {@code object} is doing while it runs, as the health rules word it: a Job with
   * its pods, a Pod alone; a Pod the rules count ready is {@code Pod NS/NAME: running}.
   */
  private String running(ResourceRef ref, Map<String, Object> object) {
    List<Map<String, Object>> pods = new ArrayList<>();
    if (ref.kind().equals(Kind.JOB)) {
      for (com.google.gson.JsonObject pod : jobPods(ref)) {
        pods.add(JsonTrees.toJava(pod));
      }
    }
    Health health = HealthRules.of(object, pods);
    if (health instanceof Health.InProgress p) {
      return p.reason();
    }
    if (health instanceof Health.Failed f) {
      return f.reason();
    }
    return WaveHealth.id(ref) + ": running";
  }

  /** The pods of the Job {@code job}, typed, by its {@code batch.kubernetes.io/job-name} label. */
  private List<com.google.gson.JsonObject> jobPods(ResourceRef job) {
    Discovery.Resource pods = apis.resolve(Kind.POD).orElse(null);
    if (pods == null) {
      return List.of();
    }
    return apis.api(pods).list(job.namespace(), "batch.kubernetes.io/job-name=" + job.name(), null);
  }

  /** {@code ; pod NAME: container C: Error (exit code 1)}, or {@code ""} when no pod shows why. */
  private String failingPod(ResourceRef job) {
    for (com.google.gson.JsonObject raw : jobPods(job)) {
      Map<String, Object> pod = JsonTrees.toJava(raw);
      PodFailure failure = PodFailure.ofFinished(pod);
      if (failure != null) {
        return "; pod "
            + dev.capstan.common.Trees.text(pod, "metadata", "name")
            + ": "
            + failure.explain();
      }
    }
    return "";
  }

  private static void close(@Nullable Watchable<?> watch) {
    if (watch != null) {
      try {
        watch.close();
      } catch (IOException | RuntimeException ignored) {
        // closing a finished watch
      }
    }
  }
}
