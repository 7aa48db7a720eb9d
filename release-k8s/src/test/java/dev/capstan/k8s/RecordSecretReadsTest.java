package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpServer;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.codec.RecordLimits;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reads of record Secrets over a loopback API server, with their exact requests.
 *
 * <p>A release's record Secrets live in its namespace, where whoever may write Secrets there (a
 * tenant, on a shared controller) may forge more under the same labels. A read of a release's
 * records holds the heads and chunks it names and nothing else, and no more bytes of them than one
 * record may take of the reader's memory ({@link RecordLimits}), whatever the forged Secrets hold
 * or say.
 *
 * <p>A writer that replaces a chunked record deletes the old chunks after it updates the head, and
 * an uninstall deletes them all: a reader that listed the head before reads the head as it is now.
 */
class RecordSecretReadsTest {
  private static final String NS = "shop";
  private static final String SECRETS = "/api/v1/namespaces/shop/secrets";

  /** The LIST of shop/web's record Secrets. */
  private static final String RECORDS =
      "GET " + SECRETS + "?labelSelector=owner=capstan,name=web,capstan.dev/record&limit=500";

  private final Map<String, V1Secret> secrets = new LinkedHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private @Nullable HttpServer server;

  /** What another writer does just before the server answers the next LIST of chunks. */
  private @Nullable Runnable beforeChunkList;

  @AfterEach
  void stop() {
    HttpServer running = server;
    if (running != null) {
      running.stop(0);
    }
  }

  /** Revision {@code revision} of shop/web: a ConfigMap of {@code keys} random keys. */
  private static Release web(int revision, ReleaseStatus status, int keys) {
    return ReleaseRecordsIT.release(
        NS, "web", revision, status, Payloads.of(ReleaseRecordsIT.config(NS, keys)));
  }

  /** Stores {@code release} as Capstan writes it, in chunks of {@code chunkBytes}. */
  private RecordSecrets.Encoded store(Release release, int chunkBytes) {
    RecordSecrets.Encoded e =
        RecordSecrets.Encoded.of(ReleaseRecordCodec.encode(release), chunkBytes);
    for (int i = 0; i < e.chunks(); i++) {
      put(
          RecordSecrets.chunk(
              release, e, i, RecordSecrets.chunkName("web", release.revision(), e.digest(), i)));
    }
    put(RecordSecrets.head(release, e, null));
    return e;
  }

  private void put(V1Secret s) {
    V1ObjectMeta meta = s.getMetadata();
    meta.namespace(NS).uid("uid-" + meta.getName()).resourceVersion("1");
    secrets.put(meta.getName(), s);
  }

  /** A Secret that carries a record's labels, with {@code part}, holding {@code bytes} bytes. */
  private void forge(String name, String part, int bytes) {
    put(
        new V1Secret()
            .metadata(
                new V1ObjectMeta()
                    .name(name)
                    .labels(Map.of("owner", "capstan", "name", "web", RecordSecrets.PART, part)))
            .data(Map.of("junk", new byte[bytes])));
  }

  /**
   * The records of namespace shop, read by a store whose share of memory for one record is {@code
   * maxDecodedBytes}, over a loopback API server that answers from {@link #secrets}.
   */
  private ReleaseRecords records(long maxDecodedBytes) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server = s;
    s.createContext(
        "/",
        x -> {
          String path = x.getRequestURI().getPath();
          String query = URLDecoder.decode(String.valueOf(x.getRequestURI().getQuery()), UTF_8);
          boolean metadata =
              String.valueOf(x.getRequestHeaders().getFirst("Accept"))
                  .contains("PartialObjectMetadataList");
          requests.add(
              x.getRequestMethod()
                  + " "
                  + path
                  + (path.equals(SECRETS) ? "?" + query : "")
                  + (metadata ? " (metadata)" : ""));
          JsonElement answer;
          int code = 200;
          Runnable writer = beforeChunkList;
          if (writer != null && query.contains(RecordSecrets.PART + "=chunk")) {
            beforeChunkList = null;
            writer.run();
          }
          if (path.equals(SECRETS)) {
            answer = list(query, metadata);
          } else {
            V1Secret found = secrets.get(path.substring(SECRETS.length() + 1));
            code = found == null ? 404 : 200;
            answer =
                found == null
                    ? JSON.getGson().toJsonTree(Map.of("kind", "Status", "code", 404))
                    : JSON.getGson().toJsonTree(found);
          }
          byte[] body = answer.toString().getBytes(UTF_8);
          x.getResponseHeaders().set("Content-Type", "application/json");
          x.sendResponseHeaders(code, body.length);
          try (OutputStream out = x.getResponseBody()) {
            out.write(body);
          }
        });
    s.start();
    ApiClient api = new ApiClient().setBasePath("http://127.0.0.1:" + s.getAddress().getPort());
    return new ReleaseRecords(
        new ResourceApi<>(KubeClients.fromApiClient(api, "test"), ApiResource.SECRET),
        new CoreV1Api(api),
        1_000_000,
        new RecordLimits(maxDecodedBytes, Long.MAX_VALUE));
  }

  /** The Secrets matching the query's label selector (equalities and existence), in one page. */
  private JsonObject list(String query, boolean metadata) {
    String selector = "";
    for (String param : query.split("&", -1)) {
      if (param.startsWith("labelSelector=")) {
        selector = param.substring("labelSelector=".length());
      }
    }
    JsonArray items = new JsonArray();
    for (V1Secret s : secrets.values()) {
      Map<String, String> labels = s.getMetadata().getLabels();
      boolean matches = true;
      for (String term : selector.split(",(?![^(]*\\))", -1)) {
        int eq = term.indexOf('=');
        int ne = term.indexOf("!=");
        int in = term.indexOf(" in (");
        if (in > 0) {
          matches &=
              List.of(term.substring(in + 5, term.length() - 1).split(",", -1))
                  .contains(labels.get(term.substring(0, in)));
        } else if (ne > 0) {
          matches &= !term.substring(ne + 2).equals(labels.get(term.substring(0, ne)));
        } else {
          matches &=
              eq < 0
                  ? labels.containsKey(term)
                  : term.substring(eq + 1).equals(labels.get(term.substring(0, eq)));
        }
      }
      if (matches) {
        items.add(
            metadata
                ? JSON.getGson().toJsonTree(Map.of("metadata", s.getMetadata()))
                : JSON.getGson().toJsonTree(s));
      }
    }
    JsonObject out = new JsonObject();
    JsonObject meta = new JsonObject();
    meta.addProperty("resourceVersion", "9");
    out.add("metadata", meta);
    out.add("items", items);
    return out;
  }

  @Test
  void aHeadThatSaysItHasTwoBillionChunksFailsAtTheFirstOneMissing() throws IOException {
    store(web(1, ReleaseStatus.DEPLOYED, 40), 1_000_000);
    V1Secret head = requireNonNull(secrets.get(RecordSecrets.headName("web", 1)));
    Map<String, String> annotations = new HashMap<>(head.getMetadata().getAnnotations());
    annotations.put(RecordSecrets.CHUNKS, "2000000000");
    head.getMetadata().setAnnotations(annotations);
    ReleaseRecords records = records(ReleaseRecordCodec.MAX_DECODED_BYTES);

    assertThatThrownBy(() -> records.latest(NS, "web"))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageStartingWith(
            "release record Secret capstan.release.v1.web.v1 is missing chunk 1 of 2000000000");
  }

  @Test
  void aHeadWithoutCapstansLabelsThatCannotBeReadSaysHowToRemoveItByName() throws IOException {
    Release v1 = web(1, ReleaseStatus.DEPLOYED, 40);
    store(v1, 1_000_000);
    put(
        new V1Secret()
            .metadata(
                new V1ObjectMeta()
                    .name("capstan.release.v1.web.v0")
                    .labels(Map.of("owner", "capstan", "name", "web", RecordSecrets.PART, "head")))
            .data(Map.of("x", new byte[] {1})));
    ReleaseRecords records = records(ReleaseRecordCodec.MAX_DECODED_BYTES);

    assertThatThrownBy(() -> records.entries(NS, "web"))
        .isInstanceOf(RecordFormatException.class)
        .hasMessage(
            "release shop/web: its record Secret capstan.release.v1.web.v0 has no revision and"
                + " status labels, which every record Capstan writes has, and cannot be read"
                + " (release record Secret capstan.release.v1.web.v0 has no data); if Capstan did"
                + " not write it, delete it (kubectl -n shop delete secret"
                + " capstan.release.v1.web.v0)");

    secrets.remove("capstan.release.v1.web.v0"); // as the message says
    assertThat(records.latest(NS, "web").orElseThrow().release()).isEqualTo(v1);
  }

  @Test
  void chunksHoldingMoreThanOneRecordsShareAreRefusedAsTheyAreRead() throws IOException {
    RecordSecrets.Encoded e = store(web(1, ReleaseStatus.DEPLOYED, 4000), 20_000);
    assertThat(e.chunks()).isGreaterThan(3);
    ReleaseRecords records = records(40_000);

    assertThatThrownBy(() -> records.latest(NS, "web"))
        .isInstanceOf(RecordFormatException.class)
        .hasMessage(
            "release record Secret capstan.release.v1.web.v1 names chunks that hold more than "
                + (40_000 + (40_000 >> 10) + 1024)
                + " bytes, more than one record may take of this reader's memory");
  }

  @Test
  void anOlderRevisionIsReadFromOneListThatKeepsOnlyTheSecretsTheHeadsName() throws IOException {
    Release v1 = web(1, ReleaseStatus.SUPERSEDED, 40);
    Release v2 = web(2, ReleaseStatus.DEPLOYED, 41);
    store(v1, 1_000_000);
    store(v2, 1_000_000);
    for (int i = 0; i < 4; i++) {
      forge("junk-" + i, "junk", 300_000);
    }
    forge("capstan.release.v1.web.v1.0000000000000000.0", "chunk", 300_000);
    ReleaseRecords records = records(100_000);

    List<RecordEntry> entries = records.entries(NS, "web");

    assertThat(entries).extracting(RecordEntry::revision).containsExactly(2, 1);
    assertThat(entries.get(1).stored().release()).isEqualTo(v1);
    // the Secrets forged beside the record, 1.5 MB, 15 times the share, were not held: one LIST
    assertThat(requests).containsExactly(RECORDS + " (metadata)", RECORDS);
    assertThat(records.all(NS, "web")).extracting(r -> r.release()).containsExactly(v2, v1);
  }

  @Test
  void revisionsThatDoNotFitOneRecordsShareTogetherAreReadOneByOne() throws IOException {
    Release v1 = web(1, ReleaseStatus.SUPERSEDED, 1500);
    Release v2 = web(2, ReleaseStatus.SUPERSEDED, 1501);
    Release v3 = web(3, ReleaseStatus.DEPLOYED, 1502);
    long stored = 0;
    long decoded = 0;
    for (Release r : List.of(v1, v2, v3)) {
      byte[] bytes = store(r, 1_000_000).bytes();
      stored += bytes.length;
      try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
        decoded = Math.max(decoded, in.readAllBytes().length);
      }
    }
    // each record fits the share, the three together do not
    long share = decoded + 1000;
    assertThat(stored).isGreaterThan(share + (share >> 10) + 1024);
    ReleaseRecords records = records(share);

    List<RecordEntry> entries = records.entries(NS, "web");

    assertThat(entries.get(1).stored().release()).isEqualTo(v2);
    assertThat(entries.get(2).stored().release()).isEqualTo(v1);
    assertThat(requests)
        .containsExactly(
            RECORDS + " (metadata)",
            RECORDS,
            "GET " + SECRETS + "/capstan.release.v1.web.v2",
            "GET " + SECRETS + "/capstan.release.v1.web.v1");
  }

  /** The LIST of the latest heads of namespace shop. */
  private static final String HEADS =
      "GET "
          + SECRETS
          + "?labelSelector=owner=capstan,capstan.dev/record=head,status!=superseded&limit=2000";

  /** The LIST of the chunks of shop/web's revision 1. */
  private static final String CHUNKS =
      "GET "
          + SECRETS
          + "?labelSelector=owner=capstan,name=web,version=1,capstan.dev/record=chunk&limit=500";

  @Test
  void aRecordReplacedBetweenItsHeadAndItsChunksIsReadAsItIsNow() throws IOException {
    Release v1 = web(1, ReleaseStatus.DEPLOYED, 400);
    RecordSecrets.Encoded old = store(v1, 5_000);
    assertThat(old.chunks()).isGreaterThan(1);
    Release failed = v1.withStatus(ReleaseStatus.FAILED, Instant.parse("2026-01-02T00:00:00Z"));
    beforeChunkList =
        () -> {
          // as ReleaseRecords.update writes: new chunks, the head, then the old chunks deleted
          store(failed, 5_000);
          requireNonNull(secrets.get(RecordSecrets.headName("web", 1)))
              .getMetadata()
              .resourceVersion("2");
          for (int i = 0; i < old.chunks(); i++) {
            secrets.remove(RecordSecrets.chunkName("web", 1, old.digest(), i));
          }
        };
    ReleaseRecords records = records(ReleaseRecordCodec.MAX_DECODED_BYTES);

    assertThat(records.latestOfEach(NS)).extracting(r -> r.release()).containsExactly(failed);
    assertThat(requests)
        .containsExactly(HEADS, CHUNKS, "GET " + SECRETS + "/capstan.release.v1.web.v1", CHUNKS);
  }

  @Test
  void aReleaseUninstalledBetweenItsHeadAndItsChunksIsLeftOutOfTheLatest() throws IOException {
    store(web(1, ReleaseStatus.DEPLOYED, 400), 5_000);
    beforeChunkList = secrets::clear;
    ReleaseRecords records = records(ReleaseRecordCodec.MAX_DECODED_BYTES);

    assertThat(records.latestOfEach(NS)).isEmpty();
    assertThat(requests)
        .containsExactly(HEADS, CHUNKS, "GET " + SECRETS + "/capstan.release.v1.web.v1");
  }

  @Test
  void aHeadWhoseChunksAreMissingWhileItStaysAsItIsFailsAfterOneMoreRead() throws IOException {
    RecordSecrets.Encoded e = store(web(1, ReleaseStatus.DEPLOYED, 400), 5_000);
    secrets.remove(RecordSecrets.chunkName("web", 1, e.digest(), 0));
    ReleaseRecords records = records(ReleaseRecordCodec.MAX_DECODED_BYTES);

    assertThatThrownBy(() -> records.latestOfEach(NS))
        .isInstanceOf(RecordFormatException.class)
        .hasMessageStartingWith(
            "release record Secret capstan.release.v1.web.v1 is missing chunk 1 of " + e.chunks());
    assertThat(requests)
        .containsExactly(HEADS, CHUNKS, "GET " + SECRETS + "/capstan.release.v1.web.v1");
  }

  /** The LIST of the record Secrets of shop/api and shop/web, for a fleet's casts. */
  private static final String FLEET =
      "GET "
          + SECRETS
          + "?labelSelector=owner=capstan,capstan.dev/record,name in (api,web)&limit=500";

  /** Stores revision {@code revision} of shop/{@code name}: a ConfigMap of 40 random keys. */
  private Release storeRelease(String name, int revision, ReleaseStatus status) {
    Release r =
        ReleaseRecordsIT.release(
            NS, name, revision, status, Payloads.of(ReleaseRecordsIT.config(NS, 40 + revision)));
    RecordSecrets.Encoded e = RecordSecrets.Encoded.of(ReleaseRecordCodec.encode(r), 1_000_000);
    put(RecordSecrets.head(r, e, null));
    return r;
  }

  @Test
  void aFleetsRecordsAreReadInOneListWhileTheyFitOneRecordsShare() throws IOException {
    Release api = storeRelease("api", 1, ReleaseStatus.DEPLOYED);
    Release web1 = storeRelease("web", 1, ReleaseStatus.SUPERSEDED);
    Release web2 = storeRelease("web", 2, ReleaseStatus.DEPLOYED);
    storeRelease("other", 1, ReleaseStatus.DEPLOYED);
    ReleaseRecords records = records(ReleaseRecordCodec.MAX_DECODED_BYTES);

    Map<String, List<RecordEntry>> entries = records.entries(NS, Set.of("web", "api"));

    assertThat(entries).containsOnlyKeys("api", "web");
    assertThat(entries.get("api")).extracting(e -> e.stored().release()).containsExactly(api);
    assertThat(entries.get("web"))
        .extracting(e -> e.stored().release())
        .containsExactly(web2, web1);
    assertThat(requests).containsExactly(FLEET);
  }

  @Test
  void aFleetsRecordsBeyondOneRecordsShareAreReadReleaseByRelease() throws IOException {
    Release api = storeRelease("api", 1, ReleaseStatus.DEPLOYED);
    Release web = storeRelease("web", 1, ReleaseStatus.DEPLOYED);
    for (int i = 0; i < 4; i++) {
      forge("junk-" + i, "chunk", 300_000);
    }
    ReleaseRecords records = records(100_000);

    Map<String, List<RecordEntry>> entries = records.entries(NS, Set.of("web", "api"));

    assertThat(entries.get("api")).extracting(e -> e.stored().release()).containsExactly(api);
    assertThat(entries.get("web")).extracting(e -> e.stored().release()).containsExactly(web);
    // the forged 1.2 MB, twelve times the share, stopped the shared LIST from keeping more
    assertThat(requests)
        .containsExactly(
            FLEET,
            "GET "
                + SECRETS
                + "?labelSelector=owner=capstan,name=api,capstan.dev/record&limit=500"
                + " (metadata)",
            RECORDS + " (metadata)",
            "GET " + SECRETS + "/capstan.release.v1.api.v1",
            "GET " + SECRETS + "/capstan.release.v1.web.v1");
  }
}
