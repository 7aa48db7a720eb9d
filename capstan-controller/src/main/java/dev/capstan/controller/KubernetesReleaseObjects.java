package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.capstan.common.ClusterException;
import dev.capstan.common.JsonMappers;
import dev.capstan.k8s.JsonTrees;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Release resources of a cluster: reads from the controller's informer cache, writes as JSON
 * merge patches (the finalizer conditioned on the resourceVersion read; the status through its
 * subresource), Events through core/v1. A write reads nothing of the Release the API server answers
 * with: it may nest deeper than client-java's parser goes ({@link ReleaseJson}).
 */
final class KubernetesReleaseObjects implements ReleaseObjects {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesReleaseObjects.class);

  /** The field manager of every write and the source of every Event. */
  static final String MANAGER = "capstan-controller";

  private final Lister<DynamicKubernetesObject> cache;
  private final CustomObjectsApi customObjects;
  private final CoreV1Api core;
  private final ApiClient client;
  private final Clock clock;
  private final String host;

  /** The count of each Event this controller wrote, by name. */
  private final Map<String, Integer> eventCounts = new java.util.concurrent.ConcurrentHashMap<>();

  /** The failures to record an Event already logged (reason and HTTP status). */
  private final java.util.Set<String> eventFailures =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  KubernetesReleaseObjects(
      Lister<DynamicKubernetesObject> cache, ApiClient client, Clock clock, String host) {
    this.cache = requireNonNull(cache, "cache");
    this.client = requireNonNull(client, "client");
    this.clock = requireNonNull(clock, "clock");
    this.host = requireNonNull(host, "host");
    this.customObjects = new CustomObjectsApi(client);
    this.core = new CoreV1Api(client);
  }

  @Override
  public @Nullable ReleaseResource get(ReleaseKey key) {
    DynamicKubernetesObject o = cache.namespace(key.namespace()).get(key.name());
    return o == null ? null : resource(o);
  }

  @Override
  public List<ReleaseResource> list() {
    List<ReleaseResource> out = new ArrayList<>();
    for (DynamicKubernetesObject o : cache.list()) {
      out.add(resource(o));
    }
    return out;
  }

  /** The Release an informer holds. */
  static ReleaseResource resource(DynamicKubernetesObject o) {
    return ReleaseResource.of(JsonTrees.toJava(o.getRaw()));
  }

  @Override
  public void addFinalizer(ReleaseResource release) {
    List<String> finalizers = new ArrayList<>(release.finalizers());
    finalizers.add(ReleaseResource.FINALIZER);
    patchFinalizers(release, finalizers, "add the finalizer to");
  }

  @Override
  public void removeFinalizer(ReleaseResource release) {
    List<String> finalizers = new ArrayList<>(release.finalizers());
    finalizers.removeIf(ReleaseResource.FINALIZER::equals);
    patchFinalizers(release, finalizers, "remove the finalizer from");
  }

  private void patchFinalizers(ReleaseResource release, List<String> finalizers, String what) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("resourceVersion", release.resourceVersion());
    metadata.put("finalizers", finalizers);
    String body = json(Map.of("metadata", metadata));
    try {
      mergePatch(
          client,
          () ->
              customObjects
                  .patchNamespacedCustomObject(
                      ReleaseResource.GROUP,
                      ReleaseResource.VERSION,
                      release.key().namespace(),
                      ReleaseResource.PLURAL,
                      release.key().name(),
                      new V1Patch(body))
                  .buildCall(null));
    } catch (ApiException e) {
      throw failure(what, release.key(), e.getCode(), detail(e), e);
    }
  }

  /**
   * Sends a JSON merge patch of a Release and reads nothing of the answer (the Release as patched:
   * it may nest deeper than client-java's parser goes).
   */
  static void mergePatch(ApiClient client, PatchUtils.PatchCallFunc call) throws ApiException {
    // no type: client-java closes the answer unread
    PatchUtils.patch(null, call, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
  }

  @Override
  public void writeStatus(ReleaseResource release, Map<String, Object> status) {
    String body = json(Map.of("status", status));
    try {
      mergePatch(
          client,
          () ->
              customObjects
                  .patchNamespacedCustomObjectStatus(
                      ReleaseResource.GROUP,
                      ReleaseResource.VERSION,
                      release.key().namespace(),
                      ReleaseResource.PLURAL,
                      release.key().name(),
                      new V1Patch(body))
                  .fieldManager(MANAGER)
                  .buildCall(null));
    } catch (ApiException e) {
      throw failure("write the status of", release.key(), e.getCode(), detail(e), e);
    }
  }

  /**
   * Records the Event as Kubernetes' own recorder aggregates a repeated one: one Event object per
   * Release and reason ({@link #eventName}), created with {@code count: 1} and then patched ({@code
   * count}, {@code lastTimestamp}, the latest message) each time the reason comes again. The count
   * is remembered, and read from the object after a restart, so a failure retried for hours is one
   * object with a count, not one object per try. A failure to record is logged, once per reason and
   * status, never thrown.
   */
  @Override
  public void event(ReleaseResource release, boolean warning, String reason, String message) {
    String ns = release.key().namespace();
    String name = eventName(release, reason);
    OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
    String text = message.length() > 1024 ? message.substring(0, 1021) + "..." : message;
    String type = warning ? "Warning" : "Normal";
    try {
      Integer known = eventCounts.get(name);
      if (known == null) {
        known = existingCount(ns, name);
      }
      int count;
      if (known == null) {
        count = create(release, name, type, reason, text, now);
      } else {
        count = known + 1;
        if (!patchEvent(ns, name, count, type, text, now)) {
          count = create(release, name, type, reason, text, now);
        }
      }
      eventCounts.put(name, count);
      eventFailures.remove(reason);
    } catch (ApiException e) {
      eventCounts.remove(name);
      if (eventFailures.add(reason + " " + e.getCode())) {
        LOG.warn(
            "cannot record the event {} of Release {}: HTTP {} {}",
            reason,
            release.key(),
            e.getCode(),
            detail(e));
      }
    }
  }

  /**
   * The name of a Release's Event for {@code reason}: the Release's name (cut to leave room), a dot
   * and 16 hex digits of a SHA-256 of its uid and the reason: one object per Release and reason,
   * and a Release made again under the same name gets new ones.
   */
  static String eventName(ReleaseResource release, String reason) {
    String name = release.key().name();
    if (name.length() > 236) {
      name = name.substring(0, 236);
    }
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(
                  (release.uid() + "/" + reason).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return name + "." + java.util.HexFormat.of().formatHex(digest, 0, 8);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }

  /** The count of an Event that exists (1 when it has none), or null when it does not. */
  private @Nullable Integer existingCount(String ns, String name) throws ApiException {
    try {
      CoreV1Event e = core.readNamespacedEvent(name, ns).execute();
      return e.getCount() == null ? 1 : e.getCount();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  /** Creates the Event with count 1; another writer's copy (409) is counted on instead. */
  private int create(
      ReleaseResource release,
      String name,
      String type,
      String reason,
      String message,
      OffsetDateTime now)
      throws ApiException {
    String ns = release.key().namespace();
    CoreV1Event event =
        new CoreV1Event()
            .metadata(new V1ObjectMeta().name(name).namespace(ns))
            .involvedObject(
                new V1ObjectReference()
                    .apiVersion(ReleaseResource.API_VERSION)
                    .kind(ReleaseResource.KIND)
                    .namespace(ns)
                    .name(release.key().name())
                    .uid(release.uid())
                    .resourceVersion(release.resourceVersion()))
            .type(type)
            .reason(reason)
            .message(message)
            .source(new V1EventSource().component(MANAGER).host(host))
            .reportingComponent(MANAGER)
            .reportingInstance(host)
            .firstTimestamp(now)
            .lastTimestamp(now)
            .count(1);
    try {
      core.createNamespacedEvent(ns, event).execute();
      return 1;
    } catch (ApiException e) {
      Integer theirs = e.getCode() == 409 ? existingCount(ns, name) : null;
      if (theirs == null) {
        throw e;
      }
      patchEvent(ns, name, theirs + 1, type, message, now);
      return theirs + 1;
    }
  }

  /** Patches a repeat into the Event; false when it is gone (expired: the API server's TTL). */
  private boolean patchEvent(
      String ns, String name, int count, String type, String message, OffsetDateTime now)
      throws ApiException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("count", count);
    body.put("type", type);
    body.put("message", message);
    body.put("lastTimestamp", now.toInstant().toString());
    String json = json(body);
    try {
      PatchUtils.patch(
          CoreV1Event.class,
          () -> core.patchNamespacedEvent(name, ns, new V1Patch(json)).buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          client);
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /**
   * What the API server said of a failed request: its Status's message, never the response body
   * itself (which could hold anything); {@code HTTP n} without one.
   */
  static String detail(ApiException e) {
    String body = e.getResponseBody();
    if (body != null && !body.isBlank()) {
      try {
        io.kubernetes.client.openapi.models.V1Status status =
            io.kubernetes.client.openapi.JSON.deserialize(
                body, io.kubernetes.client.openapi.models.V1Status.class);
        if (status != null && status.getMessage() != null) {
          return status.getMessage();
        }
      } catch (RuntimeException notAStatus) {
        // not a Status: not shown
      }
    }
    return "HTTP " + e.getCode();
  }

  private static ClusterException failure(
      String what, ReleaseKey key, int status, @Nullable String detail, @Nullable Throwable cause) {
    return new ClusterException(
        what,
        ReleaseResource.KIND,
        key.namespace(),
        key.name(),
        status,
        detail == null || detail.isEmpty() ? "HTTP " + status : detail,
        cause);
  }

  private static String json(Object tree) {
    try {
      return JsonMappers.trees().writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a status as JSON", e);
    }
  }
}
