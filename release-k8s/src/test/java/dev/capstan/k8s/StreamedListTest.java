package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpServer;
import dev.capstan.common.ClusterException;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapList;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A LIST is read a token at a time, each object parsed alone and dropped unless kept: what a
 * namespace holds besides a release's objects (a tenant's thousand ConfigMaps of a megabyte each)
 * is never held, whatever the page size.
 */
class StreamedListTest {
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private @Nullable HttpServer server;

  private static String configMap(String name, int dataChars) {
    return "{\"metadata\":{\"name\":\""
        + name
        + "\",\"namespace\":\"shop\",\"resourceVersion\":\"5\",\"annotations\":{\"a\":\"x\"}},"
        + "\"data\":{\"v\":\""
        + "d".repeat(dataChars)
        + "\"}}";
  }

  private static String page(String version, @Nullable String next, String... items) {
    return "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
        + version
        + "\""
        + (next == null ? "" : ",\"continue\":\"" + next + "\",\"remainingItemCount\":1")
        + "},\"items\":["
        + String.join(",", items)
        + "]}";
  }

  /** The ConfigMaps API of namespace shop, answering the first page, then (by token) the second. */
  private ResourceApi<V1ConfigMap, V1ConfigMapList> configMaps(String first, String second)
      throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server = s;
    s.createContext(
        "/",
        x -> {
          String query = URLDecoder.decode(String.valueOf(x.getRequestURI().getQuery()), UTF_8);
          requests.add(
              x.getRequestMethod()
                  + " "
                  + x.getRequestURI().getPath()
                  + "?"
                  + query
                  + " "
                  + x.getRequestHeaders().getFirst("Accept"));
          boolean refused = query.contains("labelSelector=refused");
          byte[] body =
              (refused
                      ? "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                          + "\"message\":\"configmaps is forbidden: User \\\"u\\\" cannot list"
                          + " resource \\\"configmaps\\\"\",\"reason\":\"Forbidden\",\"code\":403}"
                      : query.contains("continue=") ? second : first)
                  .getBytes(UTF_8);
          x.getResponseHeaders().set("Content-Type", "application/json");
          x.sendResponseHeaders(refused ? 403 : 200, body.length);
          try (OutputStream out = x.getResponseBody()) {
            out.write(body);
          }
        });
    s.start();
    ApiClient api = new ApiClient().setBasePath("http://127.0.0.1:" + s.getAddress().getPort());
    return new ResourceApi<>(KubeClients.fromApiClient(api, "test"), ApiResource.CONFIGMAP);
  }

  @AfterEach
  void stop() {
    HttpServer running = server;
    if (running != null) {
      running.stop(0);
    }
  }

  @Test
  void aListingKeepsTheObjectsAskedForFromEveryPageWithTheFirstPagesVersion() throws IOException {
    ResourceApi<V1ConfigMap, V1ConfigMapList> api =
        configMaps(
            page("100", "tok", configMap("web", 3), configMap("other", 100_000)),
            page("101", null, configMap("api", 3), configMap("more", 100_000)));

    ResourceApi.Listing<JsonObject> listed =
        api.listingRaw("shop", null, null, 2, DynamicApis.named(Set.of("web", "api")));

    assertThat(listed.items())
        .containsExactly(
            JsonParser.parseString(configMap("web", 3)).getAsJsonObject(),
            JsonParser.parseString(configMap("api", 3)).getAsJsonObject());
    assertThat(listed.resourceVersion()).isEqualTo("100");
    assertThat(requests)
        .containsExactly(
            "GET /api/v1/namespaces/shop/configmaps?limit=2 application/json",
            "GET /api/v1/namespaces/shop/configmaps?limit=2&continue=tok application/json");
    assertThat(api.listNames("shop", null).names()).containsExactly("api", "more", "other", "web");
  }

  @Test
  void aTypedListingIsReadTheSameWayAndKeepsEveryObjectOfEveryPage() throws IOException {
    ResourceApi<V1ConfigMap, V1ConfigMapList> api =
        configMaps(
            page("100", "tok", configMap("web", 3), configMap("other", 4)),
            page("101", null, configMap("api", 5)));

    ResourceApi.Listing<V1ConfigMap> listed = api.listing("shop", "tier=web", null);

    assertThat(listed.items())
        .extracting(c -> c.getMetadata().getName(), c -> c.getData().get("v"))
        .containsExactly(tuple("web", "ddd"), tuple("other", "dddd"), tuple("api", "ddddd"));
    assertThat(listed.resourceVersion()).isEqualTo("100");
    assertThat(requests)
        .containsExactly(
            "GET /api/v1/namespaces/shop/configmaps?labelSelector=tier=web&limit=500"
                + " application/json",
            "GET /api/v1/namespaces/shop/configmaps?labelSelector=tier=web&limit=500&continue=tok"
                + " application/json");
  }

  @Test
  void aFirstPageOfMetadataIsOneRequestForMetadataAndSaysWhetherMoreFollow() throws IOException {
    ResourceApi<V1ConfigMap, V1ConfigMapList> api =
        configMaps(page("100", "tok", configMap("web", 3)), page("101", null, configMap("api", 3)));
    boolean[] more = new boolean[1];

    List<JsonObject> first = api.firstPageMetadata(1, more);

    assertThat(first).extracting(o -> JsonTrees.text(o, "metadata", "name")).containsExactly("web");
    assertThat(more[0]).isTrue();
    assertThat(requests)
        .containsExactly(
            "GET /api/v1/configmaps?limit=1"
                + " application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
                + " application/json");
  }

  @Test
  void aRefusedListNamesTheKindTheNamespaceAndTheApiServersReason() throws IOException {
    ResourceApi<V1ConfigMap, V1ConfigMapList> api = configMaps(page("1", null), page("1", null));

    assertThatThrownBy(() -> api.listingRaw("shop", "refused", null))
        .isInstanceOf(ClusterException.class)
        .hasMessage(
            "list ConfigMap in namespace shop failed (HTTP 403): configmaps is forbidden: User"
                + " \"u\" cannot list resource \"configmaps\"");
  }

  /** A text whose characters are counted as they are read. */
  private static final class Counting extends StringReader {
    long read;

    Counting(String text) {
      super(text);
    }

    @Override
    public int read(char[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      read += Math.max(n, 0);
      return n;
    }
  }

  @Test
  void eachObjectIsHandedOnBeforeTheNextIsRead() throws IOException {
    int objects = 20;
    List<String> items = new ArrayList<>();
    for (int i = 0; i < objects; i++) {
      items.add(configMap("cm-" + i, 50_000));
    }
    String text = page("7", null, items.toArray(String[]::new));
    Counting reader = new Counting(text);
    List<Long> readWhenHanded = new ArrayList<>();

    ResourceApi.PageMeta meta =
        ResourceApi.PageMeta.of(JsonTrees.readList(reader, o -> readWhenHanded.add(reader.read)));

    assertThat(meta).isEqualTo(new ResourceApi.PageMeta("7", null));
    assertThat(readWhenHanded).hasSize(objects);
    for (int i = 0; i < objects; i++) {
      long endOfObject = (long) text.indexOf(items.get(i)) + items.get(i).length();
      // what the reader had read when object i was handed on: it, and at most a buffer beyond
      assertThat(readWhenHanded.get(i)).isBetween(endOfObject, endOfObject + 8192);
    }
  }

  @Test
  void anEmptyListOfMetadataAndAListThatIsNoneAreToldApart() throws IOException {
    List<JsonObject> handed = new ArrayList<>();

    ResourceApi.PageMeta meta =
        ResourceApi.PageMeta.of(
            JsonTrees.readList(
                new StringReader("{\"metadata\":{\"resourceVersion\":\"3\"},\"items\":null}"),
                handed::add));

    assertThat(meta).isEqualTo(new ResourceApi.PageMeta("3", null));
    assertThat(handed).isEmpty();
    for (String notAList : List.of("[]", "{\"items\":[1]}", "{\"items\":[{}]", "")) {
      Reader r = new StringReader(notAList);
      assertThatThrownBy(() -> JsonTrees.readList(r, handed::add))
          .as(notAList)
          .isInstanceOf(IOException.class);
    }
  }
}
