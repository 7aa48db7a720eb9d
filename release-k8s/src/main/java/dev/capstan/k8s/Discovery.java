package dev.capstan.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import okhttp3.Call;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/**
 * The REST mapping from discovery: for each kind the cluster serves ({@code group/Kind}), the
 * versions it is served at (preferred first), its plural resource name and its scope.
 *
 * <p>One discovery round is two requests, {@code GET /api} and {@code GET /apis}, asking for
 * aggregated discovery ({@code apidiscovery.k8s.io/v2}); a server without it answers with the plain
 * group lists, and then each group-version's resource list is read too. The mapping is read at
 * first use and kept; {@link #refresh()} reads it again (the orchestrator does so once when a kind
 * is unknown, e.g. a CRD created earlier in the same cast). Thread-safe.
 */
final class Discovery {
  private static final String AGGREGATED =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
          + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
          + "application/json";

  /**
   * One served resource.
   *
   * @param group the API group, {@code ""} for the core group
   * @param version the version
   * @param plural the resource name in URLs, e.g. {@code deployments}
   * @param kind the kind
   * @param namespaced whether its objects live in namespaces
   */
  record Resource(String group, String version, String plural, String kind, boolean namespaced) {}

  private final ApiClient client;
  private volatile @Nullable Map<String, List<Resource>> byKind;
  private int rounds;

  Discovery(ApiClient client) {
    this.client = client;
  }

  /**
   * The resources serving {@code group/kind}, preferred version first; empty when the cluster does
   * not serve it. Reads discovery on first use.
   */
  List<Resource> find(String group, String kind) {
    Map<String, List<Resource>> map = byKind;
    if (map == null) {
      map = refresh();
    }
    return map.getOrDefault(key(group, kind), List.of());
  }

  /** Reads discovery again and keeps the new mapping. */
  synchronized Map<String, List<Resource>> refresh() {
    Map<String, List<Resource>> map = new HashMap<>();
    read("/api", map, "");
    read("/apis", map, null);
    rounds++;
    byKind = map;
    return map;
  }

  /** How many discovery rounds were read. */
  synchronized int rounds() {
    return rounds;
  }

  /** The resources of an aggregated discovery document ({@code APIGroupDiscoveryList}). */
  static void readAggregated(
      JsonObject doc, @Nullable String coreGroup, Map<String, List<Resource>> map) {
    for (JsonElement item : array(doc, "items")) {
      JsonObject group = item.getAsJsonObject();
      String name = JsonTrees.text(group, "metadata", "name");
      String g = name == null ? (coreGroup == null ? "" : coreGroup) : name;
      for (JsonElement v : array(group, "versions")) {
        String version = JsonTrees.text(v.getAsJsonObject(), "version");
        for (JsonElement r : array(v.getAsJsonObject(), "resources")) {
          JsonObject res = r.getAsJsonObject();
          String k = JsonTrees.text(res, "responseKind", "kind");
          String plural = JsonTrees.text(res, "resource");
          if (version != null && k != null && plural != null && !plural.contains("/")) {
            add(
                map,
                new Resource(
                    g, version, plural, k, "Namespaced".equals(JsonTrees.text(res, "scope"))));
          }
        }
      }
    }
  }

  private void read(String path, Map<String, List<Resource>> map, @Nullable String coreGroup) {
    JsonObject doc = get(path, AGGREGATED);
    String kind = JsonTrees.text(doc, "kind");
    if ("APIGroupDiscoveryList".equals(kind)) {
      readAggregated(doc, coreGroup, map);
    } else if ("APIVersions".equals(kind)) {
      for (JsonElement v : array(doc, "versions")) {
        readResourceList("/api/" + v.getAsString(), "", v.getAsString(), map);
      }
    } else if ("APIGroupList".equals(kind)) {
      for (JsonElement item : array(doc, "groups")) {
        JsonObject group = item.getAsJsonObject();
        String g = JsonTrees.text(group, "name");
        String preferred = JsonTrees.text(group, "preferredVersion", "version");
        List<String> versions = new ArrayList<>();
        if (preferred != null) {
          versions.add(preferred);
        }
        for (JsonElement v : array(group, "versions")) {
          String version = JsonTrees.text(v.getAsJsonObject(), "version");
          if (version != null && !versions.contains(version)) {
            versions.add(version);
          }
        }
        for (String version : versions) {
          readResourceList("/apis/" + g + "/" + version, String.valueOf(g), version, map);
        }
      }
    }
  }

  private void readResourceList(
      String path, String group, String version, Map<String, List<Resource>> map) {
    readResourceList(get(path, "application/json"), group, version, map);
  }

  /** The resources of one group-version's {@code APIResourceList}. */
  static void readResourceList(
      JsonObject doc, String group, String version, Map<String, List<Resource>> map) {
    for (JsonElement r : array(doc, "resources")) {
      JsonObject res = r.getAsJsonObject();
      String plural = JsonTrees.text(res, "name");
      String k = JsonTrees.text(res, "kind");
      if (plural != null && k != null && !plural.contains("/")) {
        boolean namespaced = res.get("namespaced") != null && res.get("namespaced").getAsBoolean();
        add(map, new Resource(group, version, plural, k, namespaced));
      }
    }
  }

  private static void add(Map<String, List<Resource>> map, Resource r) {
    map.computeIfAbsent(key(r.group(), r.kind()), x -> new ArrayList<>()).add(r);
  }

  private static Iterable<JsonElement> array(@Nullable JsonObject parent, String key) {
    JsonElement e = parent == null ? null : parent.get(key);
    return e != null && e.isJsonArray() ? e.getAsJsonArray() : List.of();
  }

  private static String key(String group, String kind) {
    return group.isEmpty() ? kind : group + "/" + kind;
  }

  private JsonObject get(String path, String accept) {
    try {
      Call call =
          client.buildCall(
              client.getBasePath(),
              path,
              "GET",
              new ArrayList<>(),
              new ArrayList<>(),
              null,
              new HashMap<>(Map.of("Accept", accept)),
              new HashMap<>(),
              new HashMap<>(),
              new String[] {"BearerToken"},
              null);
      try (Response response = call.execute()) {
        ResponseBody body = response.body();
        String text = body == null ? "" : body.string();
        if (!response.isSuccessful()) {
          throw KubeFailure.of(new ApiException(response.code(), Map.of(), text))
              .toException("discover", path, null, null);
        }
        return JsonParser.parseString(text).getAsJsonObject();
      }
    } catch (ApiException e) {
      throw KubeFailure.of(e).toException("discover", path, null, null);
    } catch (IOException e) {
      if (e instanceof InterruptedIOException && !(e instanceof SocketTimeoutException)) {
        Thread.currentThread().interrupt();
      }
      throw new KubeFailure(0, "", String.valueOf(e), e).toException("discover", path, null, null);
    }
  }
}
