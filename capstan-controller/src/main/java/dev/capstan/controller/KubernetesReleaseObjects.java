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
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
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
 * subresource), Events through core/v1.
 */
final class KubernetesReleaseObjects implements ReleaseObjects {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesReleaseObjects.class);

  /** The field manager of every write and the source of every Event. */
  static final String MANAGER = "capstan-controller";

  private final Lister<DynamicKubernetesObject> cache;
  private final GenericKubernetesApi<DynamicKubernetesObject, DynamicKubernetesListObject> api;
  private final CustomObjectsApi customObjects;
  private final CoreV1Api core;
  private final ApiClient client;
  private final Clock clock;
  private final String host;

  KubernetesReleaseObjects(
      Lister<DynamicKubernetesObject> cache, ApiClient client, Clock clock, String host) {
    this.cache = requireNonNull(cache, "cache");
    this.client = requireNonNull(client, "client");
    this.clock = requireNonNull(clock, "clock");
    this.host = requireNonNull(host, "host");
    this.api = releasesApi(client);
    this.customObjects = new CustomObjectsApi(client);
    this.core = new CoreV1Api(client);
  }

  /** The generic API of Release resources on {@code client}. */
  static GenericKubernetesApi<DynamicKubernetesObject, DynamicKubernetesListObject> releasesApi(
      ApiClient client) {
    return new GenericKubernetesApi<>(
        DynamicKubernetesObject.class,
        DynamicKubernetesListObject.class,
        ReleaseResource.GROUP,
        ReleaseResource.VERSION,
        ReleaseResource.PLURAL,
        client);
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
    KubernetesApiResponse<DynamicKubernetesObject> r =
        api.patch(
            release.key().namespace(),
            release.key().name(),
            V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
            new V1Patch(body));
    if (!r.isSuccess()) {
      throw failure(
          what,
          release.key(),
          r.getHttpStatusCode(),
          r.getStatus() == null ? "" : String.valueOf(r.getStatus().getMessage()),
          null);
    }
  }

  @Override
  public void writeStatus(ReleaseResource release, Map<String, Object> status) {
    String body = json(Map.of("status", status));
    try {
      PatchUtils.patch(
          Object.class,
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
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          client);
    } catch (ApiException e) {
      throw failure("write the status of", release.key(), e.getCode(), e.getMessage(), e);
    }
  }

  @Override
  public void event(ReleaseResource release, boolean warning, String reason, String message) {
    OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
    CoreV1Event event =
        new CoreV1Event()
            .metadata(
                new V1ObjectMeta()
                    .generateName(release.key().name() + ".")
                    .namespace(release.key().namespace()))
            .involvedObject(
                new V1ObjectReference()
                    .apiVersion(ReleaseResource.API_VERSION)
                    .kind(ReleaseResource.KIND)
                    .namespace(release.key().namespace())
                    .name(release.key().name())
                    .uid(release.uid())
                    .resourceVersion(release.resourceVersion()))
            .type(warning ? "Warning" : "Normal")
            .reason(reason)
            .message(message.length() > 1024 ? message.substring(0, 1021) + "..." : message)
            .source(new V1EventSource().component(MANAGER).host(host))
            .reportingComponent(MANAGER)
            .reportingInstance(host)
            .firstTimestamp(now)
            .lastTimestamp(now)
            .count(1);
    try {
      core.createNamespacedEvent(release.key().namespace(), event).execute();
    } catch (ApiException e) {
      LOG.warn(
          "cannot record the event {} of Release {}: HTTP {}", reason, release.key(), e.getCode());
    }
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
