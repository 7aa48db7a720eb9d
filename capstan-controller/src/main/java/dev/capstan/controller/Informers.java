package dev.capstan.controller;

import static java.util.Objects.requireNonNull;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonPrimitive;
import com.google.gson.reflect.TypeToken;
import dev.capstan.k8s.JsonTrees;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Lister;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import okhttp3.Call;
import org.jspecify.annotations.Nullable;

/**
 * The controller's informers (client-java's {@link SharedInformerFactory}): the Release resources
 * (of its shard, when a label selector is given), and the ConfigMaps and Secrets of every
 * namespace, less the Secrets that hold Capstan's and Helm's release records. They list once, then
 * watch; the Release cache answers every read the reconciler makes of Releases. Of the ConfigMaps
 * and Secrets only their metadata is asked for ({@link JsonTrees#METADATA_LIST_ACCEPT}) and cached:
 * they only tell the controller which Releases to look at when one changes, and each Release reads
 * its sources through its own account ({@link AccountSources}), so the controller holds no Secret's
 * values and no tenant reads through it what its account may not. Releases are listed and watched
 * through {@link ReleaseApi}, which reads each whatever it nests: one tenant's Release nested too
 * deep is held clipped and refused alone ({@link ReleaseJson}), and never stops the informer.
 */
final class Informers {
  /** Secrets of these types hold release records, never manifests: not cached. */
  static final String SECRET_FIELD_SELECTOR =
      "type!=capstan.dev/release.v1,type!=capstan.dev/release.v1.chunk,type!=helm.sh/release.v1";

  private static final String BY_SOURCE = "sources";
  private static final String BY_DEPENDENCY = "dependsOn";

  private final SharedInformerFactory factory;
  private final SharedIndexInformer<DynamicKubernetesObject> releases;
  private final SharedIndexInformer<V1ConfigMap> configMaps;
  private final SharedIndexInformer<V1Secret> secrets;
  private final Lister<DynamicKubernetesObject> releaseLister;

  /**
   * Informers on {@code client} (a client without a read timeout: watches stay open).
   *
   * @param selector the label selector of the Releases to watch, or null for all
   */
  Informers(ApiClient client, @Nullable String selector, ExecutorService executor) {
    factory = new SharedInformerFactory(client, executor, false);
    releases =
        factory.sharedIndexInformerFor(
            new ReleaseApi(client, selector), DynamicKubernetesObject.class, 0);
    configMaps =
        factory.sharedIndexInformerFor(
            metadataOnly(
                client, "/api/v1/configmaps", null, V1ConfigMap.class, V1ConfigMapList.class),
            V1ConfigMap.class,
            0);
    secrets =
        factory.sharedIndexInformerFor(
            metadataOnly(
                client,
                "/api/v1/secrets",
                SECRET_FIELD_SELECTOR,
                V1Secret.class,
                V1SecretList.class),
            V1Secret.class,
            0);
    // which Releases read a source, and which depend on a Release: computed by the informer once
    // per change of a Release, so an event of a source or a Release looks its readers up
    releases.addIndexers(
        Map.of(
            BY_SOURCE,
            o -> sourceKeys(KubernetesReleaseObjects.resource(o)),
            BY_DEPENDENCY,
            o ->
                KubernetesReleaseObjects.resource(o).dependsOn().stream()
                    .map(ReleaseKey::toString)
                    .toList()));
    // a list holds each object's identity alone (identities); a watch event's object is kept so
    configMaps.setTransform(
        o ->
            o instanceof V1ConfigMap c ? new V1ConfigMap().metadata(identity(c.getMetadata())) : o);
    secrets.setTransform(
        o -> o instanceof V1Secret c ? new V1Secret().metadata(identity(c.getMetadata())) : o);
    releaseLister = new Lister<>(releases.getIndexer());
  }

  /**
   * A lister-watcher of every object at {@code path} ({@code /api/v1/configmaps}) with the field
   * selector given, that asks the API server for their metadata only ({@code
   * PartialObjectMetadata}, as Kubernetes' own metadata informers do): no ConfigMap's or Secret's
   * data crosses the wire or is parsed, so what the controller reads of them grows with their
   * number, not their size. A list is read one item at a time ({@link #identities}), each holding
   * its name, namespace, uid and resourceVersion and nothing else (not its labels or annotations);
   * a watch event's object is read as {@code type} and kept the same way.
   */
  private static <T extends KubernetesObject, L extends KubernetesListObject>
      ListerWatcher<T, L> metadataOnly(
          ApiClient client,
          String path,
          @Nullable String fieldSelector,
          Class<T> type,
          Class<L> listType) {
    Type event = TypeToken.getParameterized(Watch.Response.class, type).getType();
    return new ListerWatcher<>() {
      @Override
      public L list(CallGeneratorParams params) throws ApiException {
        JsonArray items = new JsonArray();
        JsonObject metadata =
            JsonTrees.readList(call(params, false), item -> items.add(identity(item)));
        try {
          return JSON.getGson().fromJson(identityList(metadata, items), listType);
        } catch (JsonParseException e) {
          throw new ApiException(e); // a malformed answer: the informer logs it and lists again
        }
      }

      @Override
      public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
        return Watch.createWatch(client, call(params, true), event);
      }

      private Call call(CallGeneratorParams params, boolean watch) throws ApiException {
        List<Pair> query = new ArrayList<>();
        if (fieldSelector != null) {
          query.add(new Pair("fieldSelector", fieldSelector));
        }
        if (params.resourceVersion != null) {
          query.add(new Pair("resourceVersion", params.resourceVersion));
        }
        if (params.timeoutSeconds != null) {
          query.add(new Pair("timeoutSeconds", String.valueOf(params.timeoutSeconds)));
        }
        if (watch) {
          query.add(new Pair("watch", "true"));
        }
        Map<String, String> headers = new HashMap<>();
        headers.put(
            "Accept", watch ? JsonTrees.METADATA_WATCH_ACCEPT : JsonTrees.METADATA_LIST_ACCEPT);
        return client.buildCall(
            null,
            path,
            "GET",
            query,
            new ArrayList<>(),
            null,
            headers,
            new HashMap<>(),
            new HashMap<>(),
            new String[] {"BearerToken"},
            null);
      }
    };
  }

  /** The metadata fields kept of each ConfigMap and Secret: what names it and tells it changed. */
  private static final List<String> IDENTITY =
      List.of("namespace", "name", "uid", "resourceVersion");

  /**
   * A list of objects' metadata read one item at a time ({@link JsonTrees#readList}), keeping of
   * each item its {@link #IDENTITY} alone, and of the list its {@code metadata} (the
   * resourceVersion a watch starts from): labels and annotations (up to 256 KiB an object) are
   * dropped as each item is read, so a list of many objects with large metadata never holds more
   * than one of them.
   *
   * @throws IOException when it is not JSON, or not one object whose items are objects
   */
  static JsonObject identities(Reader json) throws IOException {
    JsonArray items = new JsonArray();
    JsonObject metadata = JsonTrees.readList(json, item -> items.add(identity(item)));
    return identityList(metadata, items);
  }

  /** A list item as {@code {"metadata": {IDENTITY}}}: its other fields are dropped. */
  private static JsonObject identity(JsonObject item) {
    JsonObject identity = new JsonObject();
    if (item.get("metadata") instanceof JsonObject meta) {
      for (String field : IDENTITY) {
        if (meta.get(field) instanceof JsonPrimitive value && value.isString()) {
          identity.add(field, value);
        }
      }
    }
    JsonObject kept = new JsonObject();
    kept.add("metadata", identity);
    return kept;
  }

  private static JsonObject identityList(JsonObject metadata, JsonArray items) {
    JsonObject list = new JsonObject();
    list.add("metadata", metadata);
    list.add("items", items);
    return list;
  }

  /** Of {@code metadata}, its {@link #IDENTITY} alone: what a watch event's object keeps. */
  private static @Nullable V1ObjectMeta identity(@Nullable V1ObjectMeta metadata) {
    return metadata == null
        ? null
        : new V1ObjectMeta()
            .namespace(metadata.getNamespace())
            .name(metadata.getName())
            .uid(metadata.getUid())
            .resourceVersion(metadata.getResourceVersion());
  }

  /** The Release cache. */
  Lister<DynamicKubernetesObject> releases() {
    return releaseLister;
  }

  /**
   * The Releases whose {@code spec.manifestsFrom} or {@code spec.chart} names the ConfigMap or
   * Secret that changed.
   */
  List<ReleaseKey> readers(SourceChange change) {
    return keys(
        releases
            .getIndexer()
            .byIndex(BY_SOURCE, sourceKey(change.kind(), change.namespace(), change.name())));
  }

  /** The Releases whose {@code spec.dependsOn} names {@code release}. */
  List<ReleaseKey> dependents(ReleaseKey release) {
    return keys(releases.getIndexer().byIndex(BY_DEPENDENCY, release.toString()));
  }

  private static List<ReleaseKey> keys(List<DynamicKubernetesObject> objects) {
    return objects.stream()
        .map(
            o ->
                new ReleaseKey(
                    requireNonNull(o.getMetadata().getNamespace()),
                    requireNonNull(o.getMetadata().getName())))
        .toList();
  }

  /**
   * The index keys of the sources a Release reads, read leniently (as {@code kind/ns/name}): its
   * {@code manifestsFrom}, and its chart's {@code valuesFrom}, {@code secretRef} and {@code
   * certSecretRef}.
   */
  private static List<String> sourceKeys(ReleaseResource release) {
    List<String> out = new java.util.ArrayList<>();
    String ns = release.key().namespace();
    if (release.spec().get("chart") instanceof Map<?, ?> chart) {
      if (chart.get("valuesFrom") instanceof List<?> values) {
        for (Object v : values) {
          if (v instanceof Map<?, ?> m && m.get("name") instanceof String name) {
            if ("ConfigMap".equals(m.get("kind"))) {
              out.add(sourceKey(ReleaseRequest.SourceKind.CONFIG_MAP, ns, name));
            } else if ("Secret".equals(m.get("kind"))) {
              out.add(sourceKey(ReleaseRequest.SourceKind.SECRET, ns, name));
            }
          }
        }
      }
      for (String ref : List.of("secretRef", "certSecretRef")) {
        if (chart.get(ref) instanceof Map<?, ?> m && m.get("name") instanceof String name) {
          out.add(sourceKey(ReleaseRequest.SourceKind.SECRET, ns, name));
        }
      }
    }
    if (release.spec().get("manifestsFrom") instanceof List<?> sources) {
      for (Object s : sources) {
        if (!(s instanceof Map<?, ?> m)) {
          continue;
        }
        for (ReleaseRequest.SourceKind kind : ReleaseRequest.SourceKind.values()) {
          if (m.get(kind.field()) instanceof Map<?, ?> ref
              && ref.get("name") instanceof String name) {
            out.add(sourceKey(kind, release.key().namespace(), name));
          }
        }
      }
    }
    return out;
  }

  private static String sourceKey(ReleaseRequest.SourceKind kind, String namespace, String name) {
    return kind.kind() + "/" + namespace + "/" + name;
  }

  /** Hears of every change of a Release. */
  void onRelease(ResourceEventHandler<DynamicKubernetesObject> handler) {
    releases.addEventHandler(handler);
  }

  /**
   * Hears of every ConfigMap and Secret added, changed or deleted after the caches first synced, by
   * namespace and name.
   */
  void onSource(Consumer<SourceChange> handler) {
    configMaps.addEventHandler(handler(ReleaseRequest.SourceKind.CONFIG_MAP, handler));
    secrets.addEventHandler(handler(ReleaseRequest.SourceKind.SECRET, handler));
  }

  /** A ConfigMap or Secret that changed. */
  record SourceChange(ReleaseRequest.SourceKind kind, String namespace, String name) {}

  private <T extends KubernetesObject> ResourceEventHandler<T> handler(
      ReleaseRequest.SourceKind kind, Consumer<SourceChange> handler) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        if (synced()) {
          fire(obj);
        }
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (!java.util.Objects.equals(
            oldObj.getMetadata().getResourceVersion(), newObj.getMetadata().getResourceVersion())) {
          fire(newObj);
        }
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        fire(obj);
      }

      private void fire(T obj) {
        handler.accept(
            new SourceChange(
                kind,
                requireNonNull(obj.getMetadata().getNamespace()),
                requireNonNull(obj.getMetadata().getName())));
      }
    };
  }

  /** Starts listing and watching. */
  void start() {
    factory.startAllRegisteredInformers();
  }

  /** Whether every cache holds its first list. */
  boolean synced() {
    return releases.hasSynced() && configMaps.hasSynced() && secrets.hasSynced();
  }

  /**
   * Waits until every cache holds its first list.
   *
   * @return whether they did within {@code timeout}
   */
  boolean awaitSynced(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!synced()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  /** Stops every watch. */
  void stop() {
    factory.stopAllRegisteredInformers(false);
  }
}
