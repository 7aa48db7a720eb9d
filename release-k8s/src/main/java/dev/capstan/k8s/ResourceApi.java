package dev.capstan.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.common.KubernetesType;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Preconditions;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.kubernetes.client.util.generic.options.PatchOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The requests Capstan makes on one resource type, over client-java's {@code GenericKubernetesApi}:
 * every failure is translated once, by the {@link Errors} given, into the calling port's exception.
 * A {@code null} or empty namespace means a cluster-scoped resource.
 *
 * @param <T> the object model
 * @param <L> the list model
 */
final class ResourceApi<T extends KubernetesObject, L extends KubernetesListObject> {
  /** Objects per LIST page. */
  static final int PAGE_SIZE = 500;

  private static final Map<String, String> JSON_HEADERS =
      Map.of("Accept", "application/json", "Content-Type", "application/json");

  /** The authentication client-java's generated APIs name (a bearer token, when there is one). */
  private static final String[] AUTH_NAMES = {"BearerToken"};

  private final ApiResource<T, L> kind;
  private final GenericKubernetesApi<T, L> typed;
  private final DynamicKubernetesApi raw;
  private final GenericKubernetesApi<T, L> watching;
  private final ApiClient client;

  /** {@code /api/v1} or {@code /apis/GROUP/VERSION}: where the resource's paths start. */
  private final String groupVersionPath;

  ResourceApi(KubeClients clients, ApiResource<T, L> kind) {
    this.kind = kind;
    this.client = clients.apiClient();
    this.groupVersionPath =
        (kind.group().isEmpty() ? "/api/" : "/apis/" + kind.group() + "/") + kind.version();
    this.typed =
        new GenericKubernetesApi<>(
            kind.type(),
            kind.listType(),
            kind.group(),
            kind.version(),
            kind.plural(),
            clients.apiClient());
    this.raw =
        new DynamicKubernetesApi(kind.group(), kind.version(), kind.plural(), clients.apiClient());
    this.watching =
        new GenericKubernetesApi<>(
            kind.type(),
            kind.listType(),
            kind.group(),
            kind.version(),
            kind.plural(),
            clients.watchClient());
  }

  ApiResource<T, L> kind() {
    return kind;
  }

  /** The object, or empty when it does not exist. */
  Optional<T> get(@Nullable String namespace, String name) {
    return find(
        namespace, name, () -> scoped(namespace) ? typed.get(namespace, name) : typed.get(name));
  }

  /** The object as raw JSON, or empty when it does not exist. */
  Optional<JsonObject> getRaw(@Nullable String namespace, String name) {
    return find(namespace, name, () -> scoped(namespace) ? raw.get(namespace, name) : raw.get(name))
        .map(DynamicKubernetesObject::getRaw);
  }

  private <R extends KubernetesType> Optional<R> find(
      @Nullable String namespace, String name, Supplier<KubernetesApiResponse<R>> request) {
    KubernetesApiResponse<R> r = send("get", namespace, name, request);
    if (r.getHttpStatusCode() == 404) {
      return Optional.empty();
    }
    return Optional.of(check("get", namespace, name, r));
  }

  /** Every object matching the selectors, in pages of {@value #PAGE_SIZE}, as typed models. */
  List<T> list(
      @Nullable String namespace, @Nullable String labelSelector, @Nullable String fieldSelector) {
    return list(namespace, labelSelector, fieldSelector, PAGE_SIZE);
  }

  /**
   * What one LIST returned, and the list's {@code resourceVersion} (its first page's: the pages of
   * one LIST are one snapshot), which a WATCH resumes from to miss nothing that happened since.
   */
  record Listing<O>(List<O> items, @Nullable String resourceVersion) {
    Listing {
      items = List.copyOf(items);
    }
  }

  /** Every object matching the selectors, as typed models, with the list's resourceVersion. */
  Listing<T> listing(
      @Nullable String namespace, @Nullable String labelSelector, @Nullable String fieldSelector) {
    return listing(namespace, labelSelector, fieldSelector, PAGE_SIZE);
  }

  /** As {@link #listing(String, String, String)}, in pages of {@code pageSize} objects. */
  private Listing<T> listing(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize) {
    List<T> out = new ArrayList<>();
    String version = each(namespace, labelSelector, fieldSelector, pageSize, o -> true, out::add);
    return new Listing<>(out, version);
  }

  /**
   * Hands each object matching the selectors that {@code keep} accepts (as raw JSON) to {@code
   * item}, as a typed model, in pages of {@code pageSize}: each page read a token at a time and
   * each object parsed alone ({@link #streamPages}), one converted only when kept, so the caller
   * holds what it keeps and nothing else. An exception {@code item} throws ends the LIST there.
   * Returns the list's resourceVersion.
   */
  @Nullable String each(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize,
      Predicate<JsonObject> keep,
      Consumer<T> item) {
    return streamPages(
        namespace,
        labelSelector,
        fieldSelector,
        pageSize,
        OBJECTS_LIST,
        o -> {
          if (keep.test(o)) {
            item.accept(fromRaw(o));
          }
        });
  }

  /**
   * Every object matching the selectors, as raw JSON, with the list's resourceVersion: unlike the
   * typed models (which drop it), the JSON keeps {@code metadata.managedFields}.
   */
  Listing<JsonObject> listingRaw(
      @Nullable String namespace, @Nullable String labelSelector, @Nullable String fieldSelector) {
    return listingRaw(namespace, labelSelector, fieldSelector, PAGE_SIZE);
  }

  /** As {@link #listingRaw(String, String, String)}, in pages of {@code pageSize} objects. */
  Listing<JsonObject> listingRaw(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize) {
    return listingRaw(namespace, labelSelector, fieldSelector, pageSize, o -> true);
  }

  /**
   * As {@link #listingRaw(String, String, String, int)}, keeping only the objects {@code keep}
   * accepts. Each page is read a token at a time and each object parsed alone ({@link
   * #streamPages}), so a LIST holds the objects kept and one more: a namespace of a thousand
   * ConfigMaps of a megabyte each, listed for a release's two, costs two.
   */
  Listing<JsonObject> listingRaw(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize,
      Predicate<JsonObject> keep) {
    List<JsonObject> out = new ArrayList<>();
    String version =
        streamPages(
            namespace,
            labelSelector,
            fieldSelector,
            pageSize,
            OBJECTS_LIST,
            item -> {
              if (keep.test(item)) {
                out.add(item);
              }
            });
    return new Listing<>(out, version);
  }

  /**
   * Every object matching the selectors, in pages of {@code pageSize}, as typed models. A page
   * filled exactly comes with a continue token even when nothing more matches (the server filters
   * by label after reading a page's worth), so a caller that expects about N small objects asks for
   * pages larger than N to make one request.
   */
  List<T> list(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize) {
    return listing(namespace, labelSelector, fieldSelector, pageSize).items();
  }

  /**
   * The metadata of every object matching {@code labelSelector}, in pages of {@value #PAGE_SIZE}: a
   * LIST that asks for a {@code PartialObjectMetadataList}, so the objects' bodies (a Secret's
   * data) are not sent. An API server that answers with whole objects is read the same way.
   */
  List<V1ObjectMeta> listMetadata(@Nullable String namespace, String labelSelector) {
    List<V1ObjectMeta> out = new ArrayList<>();
    streamPages(
        namespace,
        labelSelector,
        null,
        PAGE_SIZE,
        JsonTrees.METADATA_LIST_ACCEPT,
        item -> {
          if (item.get("metadata") instanceof JsonObject meta) {
            out.add(JSON.getGson().fromJson(meta, V1ObjectMeta.class));
          }
        });
    return out;
  }

  /** What a LIST asks for to be sent whole objects. */
  private static final String OBJECTS_LIST = "application/json";

  /**
   * Sends a LIST's pages one after another ({@code continue}), each read a token at a time: every
   * item is parsed alone and handed to {@code item} before the next is read ({@link
   * JsonTrees#readList}), so neither a page's text nor its tree is ever held whole, whatever the
   * objects listed hold. Returns the first page's resourceVersion (the pages of one LIST are one
   * snapshot).
   */
  private @Nullable String streamPages(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize,
      String accept,
      Consumer<JsonObject> item) {
    String token = null;
    String version = null;
    boolean first = true;
    do {
      PageMeta page =
          streamPage(namespace, labelSelector, fieldSelector, pageSize, token, accept, item);
      if (first) {
        version = page.resourceVersion();
        first = false;
      }
      token = page.next();
    } while (token != null && !token.isEmpty());
    return version;
  }

  /**
   * One page of a LIST, from {@code token} (the first page when null), read as streamPages does.
   */
  private PageMeta streamPage(
      @Nullable String namespace,
      @Nullable String labelSelector,
      @Nullable String fieldSelector,
      int pageSize,
      @Nullable String token,
      String accept,
      Consumer<JsonObject> item) {
    String path =
        groupVersionPath
            + (scoped(namespace) ? "/namespaces/" + client.escapeString(namespace) : "")
            + "/"
            + kind.plural();
    List<Pair> query = new ArrayList<>();
    if (labelSelector != null) {
      query.add(new Pair("labelSelector", labelSelector));
    }
    if (fieldSelector != null) {
      query.add(new Pair("fieldSelector", fieldSelector));
    }
    query.add(new Pair("limit", String.valueOf(pageSize)));
    if (token != null) {
      query.add(new Pair("continue", token));
    }
    try {
      return PageMeta.of(
          JsonTrees.readList(
              client.buildCall(
                  null,
                  path,
                  "GET",
                  query,
                  new ArrayList<>(),
                  null,
                  new HashMap<>(Map.of("Accept", accept)),
                  new HashMap<>(),
                  new HashMap<>(),
                  AUTH_NAMES,
                  null),
              item));
    } catch (ApiException e) {
      throw KubeFailure.of(e).toException("list", kind.kind(), namespace, null);
    }
  }

  /** Of a page's list metadata: the list's resourceVersion and the next page's continue token. */
  record PageMeta(@Nullable String resourceVersion, @Nullable String next) {
    static PageMeta of(JsonObject listMetadata) {
      return new PageMeta(
          JsonTrees.text(listMetadata, "resourceVersion"),
          JsonTrees.text(listMetadata, "continue"));
    }
  }

  /** The names of the objects a LIST returns, and the list's resourceVersion to watch from. */
  record Names(java.util.Set<String> names, @Nullable String resourceVersion) {}

  /** The names of every object matching the field selector, in pages, and the list's version. */
  Names listNames(@Nullable String namespace, @Nullable String fieldSelector) {
    java.util.Set<String> names = new java.util.TreeSet<>();
    String version =
        streamPages(
            namespace,
            null,
            fieldSelector,
            PAGE_SIZE,
            OBJECTS_LIST,
            item -> {
              String name = JsonTrees.text(item, "metadata", "name");
              if (name != null) {
                names.add(name);
              }
            });
    return new Names(names, version);
  }

  /**
   * The metadata of at most {@code limit} objects across every namespace (one LIST, asking for a
   * {@code PartialObjectMetadataList}), each as an object holding its {@code metadata}, and whether
   * more follow them (a continue token).
   */
  List<JsonObject> firstPageMetadata(int limit, boolean[] more) {
    List<JsonObject> out = new ArrayList<>();
    PageMeta page =
        streamPage(null, null, null, limit, null, JsonTrees.METADATA_LIST_ACCEPT, out::add);
    String next = page.next();
    more[0] = next != null && !next.isEmpty();
    return out;
  }

  /** A typed model of a raw object a LIST read. */
  private T fromRaw(JsonObject object) {
    return JSON.getGson().fromJson(object, kind.type());
  }

  /**
   * Server-side apply of {@code body} (a complete object with {@code apiVersion} and {@code kind})
   * under {@code manager}, forcing conflicts: the caller has decided that its fields win.
   */
  T apply(@Nullable String namespace, String name, Object body, String manager) {
    JsonElement tree = JSON.getGson().toJsonTree(body);
    return applyJson(namespace, name, JsonTrees.withoutEmpty(tree).toString(), manager);
  }

  /** Server-side apply of a JSON document under {@code manager}, forced; see {@link #apply}. */
  T applyJson(@Nullable String namespace, String name, String json, String manager) {
    PatchOptions options = new PatchOptions().fieldManager(manager).force(true);
    return patch(namespace, name, V1Patch.PATCH_FORMAT_APPLY_YAML, json, options, "apply");
  }

  /**
   * A server-side dry run ({@code dryRun=All}) of a forced server-side apply of {@code json} under
   * {@code manager}: nothing is persisted; the result is the object as the API server would store
   * it (defaulted, merged with the fields other managers own), as raw JSON.
   */
  JsonObject dryRunApply(@Nullable String namespace, String name, String json, String manager) {
    PatchOptions options = new PatchOptions().fieldManager(manager).force(true);
    options.setDryRun("All");
    V1Patch patch = new V1Patch(json);
    KubernetesApiResponse<DynamicKubernetesObject> response =
        send(
            "dry-run apply",
            namespace,
            name,
            () ->
                scoped(namespace)
                    ? raw.patch(namespace, name, V1Patch.PATCH_FORMAT_APPLY_YAML, patch, options)
                    : raw.patch(name, V1Patch.PATCH_FORMAT_APPLY_YAML, patch, options));
    return check("dry-run apply", namespace, name, response).getRaw();
  }

  /**
   * Writes an object's {@code status} subresource from {@code status} of {@code object}
   * (client-java sends it as a merge PATCH of {@code status}).
   */
  T updateStatus(T object, Function<T, Object> status) {
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    return check(
        "update status",
        namespace,
        name,
        send("update status", namespace, name, () -> typed.updateStatus(object, status)));
  }

  /** A patch of the given format ({@link V1Patch}{@code .PATCH_FORMAT_*}) under {@code manager}. */
  T patch(
      @Nullable String namespace,
      String name,
      String format,
      String body,
      @Nullable String manager) {
    PatchOptions options = new PatchOptions();
    if (manager != null) {
      options.setFieldManager(manager);
    }
    return patch(namespace, name, format, body, options, "patch");
  }

  private T patch(
      @Nullable String namespace,
      String name,
      String format,
      String body,
      PatchOptions options,
      String operation) {
    V1Patch patch = new V1Patch(body);
    return check(
        operation,
        namespace,
        name,
        send(
            operation,
            namespace,
            name,
            () ->
                scoped(namespace)
                    ? typed.patch(namespace, name, format, patch, options)
                    : typed.patch(name, format, patch, options)));
  }

  /** Creates an object; its metadata names the namespace. */
  T create(T object) {
    String namespace = object.getMetadata().getNamespace();
    return check(
        "create",
        namespace,
        object.getMetadata().getName(),
        send("create", namespace, object.getMetadata().getName(), () -> typed.create(object)));
  }

  /** Replaces an object; a {@code metadata.resourceVersion} makes it a compare-and-set. */
  T update(T object) {
    String namespace = object.getMetadata().getNamespace();
    String name = object.getMetadata().getName();
    return check(
        "update", namespace, name, send("update", namespace, name, () -> typed.update(object)));
  }

  /**
   * Deletes an object, only if it still has {@code uid} and {@code resourceVersion} when they are
   * given. The response (the deleted object, or a Status) is not decoded: an uninstall of 100
   * objects read 100 full objects it never looked at, most of a delete's CPU in the client.
   *
   * @return {@code false} when it did not exist
   */
  boolean delete(
      @Nullable String namespace,
      String name,
      @Nullable String uid,
      @Nullable String resourceVersion,
      @Nullable String propagationPolicy) {
    V1DeleteOptions options = new V1DeleteOptions();
    if (uid != null || resourceVersion != null) {
      options.setPreconditions(new V1Preconditions().uid(uid).resourceVersion(resourceVersion));
    }
    if (propagationPolicy != null) {
      options.setPropagationPolicy(propagationPolicy);
    }
    String path =
        groupVersionPath
            + (scoped(namespace) ? "/namespaces/" + client.escapeString(namespace) : "")
            + "/"
            + kind.plural()
            + "/"
            + client.escapeString(name);
    try {
      client.execute(
          client.buildCall(
              null,
              path,
              "DELETE",
              new ArrayList<>(),
              new ArrayList<>(),
              options,
              new HashMap<>(JSON_HEADERS),
              new HashMap<>(),
              new HashMap<>(),
              AUTH_NAMES,
              null));
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw KubeFailure.of(e).toException("delete", kind.kind(), namespace, name);
    }
  }

  /**
   * Opens a watch on the client without read timeout. Without a resource version in {@code options}
   * the server first sends the current objects as {@code ADDED} events.
   */
  Watchable<T> watch(@Nullable String namespace, ListOptions options) {
    try {
      return scoped(namespace) ? watching.watch(namespace, options) : watching.watch(options);
    } catch (ApiException e) {
      throw KubeFailure.of(e).toException("watch", kind.kind(), namespace, null);
    } catch (RuntimeException e) {
      KubeFailure f = KubeFailure.ofWrapped(e);
      if (f == null) {
        throw e;
      }
      throw f.toException("watch", kind.kind(), namespace, null);
    }
  }

  /** The exception for a failure the caller detected itself. */
  RuntimeException failure(
      String operation, @Nullable String namespace, @Nullable String name, KubeFailure f) {
    return f.toException(operation, kind.kind(), namespace, name);
  }

  private <R extends KubernetesType> KubernetesApiResponse<R> send(
      String operation,
      @Nullable String namespace,
      @Nullable String name,
      Supplier<KubernetesApiResponse<R>> request) {
    try {
      return request.get();
    } catch (RuntimeException e) {
      KubeFailure f = KubeFailure.ofWrapped(e);
      if (f == null) {
        throw e;
      }
      throw f.toException(operation, kind.kind(), namespace, name);
    }
  }

  private <R extends KubernetesType> R check(
      String operation,
      @Nullable String namespace,
      @Nullable String name,
      KubernetesApiResponse<R> response) {
    if (!response.isSuccess() || response.getObject() == null) {
      throw KubeFailure.of(response.getStatus(), response.getHttpStatusCode())
          .toException(operation, kind.kind(), namespace, name);
    }
    return response.getObject();
  }

  private static boolean scoped(@Nullable String namespace) {
    return namespace != null && !namespace.isEmpty();
  }
}
