package dev.capstan.k8s;

import dev.capstan.common.health.Condition;
import dev.capstan.common.health.PodFailure;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.port.Readiness;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Waits for a hook's Job or Pod to run to completion, by watching it: one LIST of it (by name, for
 * its state and the version to watch from) and, while it is running, a WATCH from that version
 * until it succeeds or fails; a watch the server ends is followed by a new LIST. A Job is done at
 * its {@code Complete} (or {@code SuccessCriteriaMet}) condition and failed at {@code Failed}; a
 * Pod at phase {@code Succeeded} or {@code Failed}. A failed Job's reason names its condition and
 * its failing pod (one LIST of its pods by the {@code batch.kubernetes.io/job-name} label), judged
 * by {@link PodFailure#ofFinished}.
 */
final class HookCompletions {
  private static final long MAX_WATCH_SECONDS = 300;

  private final DynamicApis apis;

  HookCompletions(DynamicApis apis) {
    this.apis = apis;
  }

  Readiness await(ResourceRef ref, Duration timeout) {
    long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
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
      Readiness done = judge(ref, JsonTrees.toJava(listed.items().get(0)));
      long seconds = TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime());
      if (done != null) {
        return done;
      }
      if (seconds <= 0) {
        return Readiness.timedOut(List.of(ref), timeout);
      }
      ListOptions options =
          new ListOptions()
              .timeoutSeconds((int) Math.min(MAX_WATCH_SECONDS, seconds))
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

  /** {@code ; pod NAME: container C: Error (exit code 1)}, or {@code ""} when no pod shows why. */
  private String failingPod(ResourceRef job) {
    Discovery.Resource pods = apis.resolve(Kind.POD).orElse(null);
    if (pods == null) {
      return "";
    }
    List<com.google.gson.JsonObject> listed =
        apis.api(pods)
            .calls
            .listingRaw(job.namespace(), "batch.kubernetes.io/job-name=" + job.name(), null)
            .items();
    for (com.google.gson.JsonObject raw : listed) {
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
