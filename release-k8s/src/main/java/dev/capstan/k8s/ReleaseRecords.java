package dev.capstan.k8s;

import static dev.capstan.k8s.RecordSecrets.PART;
import static dev.capstan.k8s.RecordSecrets.chunk;
import static dev.capstan.k8s.RecordSecrets.chunkCount;
import static dev.capstan.k8s.RecordSecrets.chunkName;
import static dev.capstan.k8s.RecordSecrets.head;
import static dev.capstan.k8s.RecordSecrets.label;
import static dev.capstan.k8s.RecordSecrets.revision;
import static dev.capstan.k8s.RecordSecrets.status;
import static java.util.Objects.requireNonNull;

import com.google.gson.JsonObject;
import dev.capstan.common.ClusterException;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.codec.RecordLimits;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1SecretList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Release records as Secrets, one per revision, in the format of {@link RecordSecrets}: the head
 * holds the record, or, for one larger than {@link #CHUNK_BYTES}, the SHA-256 and size of the
 * record split across chunk Secrets, checked on every read. This class makes the requests: LISTs by
 * label, CREATE and UPDATE of heads and chunks, DELETECOLLECTION of a revision.
 *
 * <p>The version token of a stored record is the head's resourceVersion, followed for a chunked
 * record by its digest and chunk count ({@code 4711:1f2e3d4c5b6a7988:3}), so an update knows which
 * chunks it replaces without reading them. Updates are compare-and-set on the head.
 */
final class ReleaseRecords {
  /**
   * The most record bytes one Secret holds: below the API server's 1 MiB limit on a Secret's data,
   * with room for the metadata.
   */
  static final int CHUNK_BYTES = 1_000_000;

  /**
   * The page size for listing the latest heads of a namespace: a head that is not superseded is one
   * per release in the common case, gzipped and small (a few hundred bytes up to the chunk size),
   * so 500 releases come in one request, not two (a page of exactly 500 carries a continue token
   * whose next page is empty). Helm lists its records in one unbounded request.
   */
  static final int HEADS_PAGE_SIZE = 2000;

  /** A label selector that leaves superseded revisions out (for listing the latest ones). */
  static final String NOT_SUPERSEDED = "status!=superseded";

  /** A label selector that leaves record Secrets out (for observing user Secrets). */
  static final String NOT_RECORDS = "!" + PART;

  /** How often {@link #decodeCurrent} reads a head that changes while its chunks are listed. */
  private static final int HEAD_READS = 3;

  private final ResourceApi<V1Secret, V1SecretList> secrets;
  private final CoreV1Api core;
  private final int chunkBytes;
  private final DecodedRecords decoded;

  ReleaseRecords(
      ResourceApi<V1Secret, V1SecretList> secrets,
      CoreV1Api core,
      int chunkBytes,
      RecordLimits limits) {
    this.decoded = new DecodedRecords(limits);
    this.secrets = secrets;
    this.core = core;
    this.chunkBytes = chunkBytes;
  }

  /** One head (and its chunks) read, verified and decoded ({@link RecordSecrets#decode}). */
  private StoredRelease decode(V1Secret head, Map<String, V1Secret> chunks) {
    return RecordSecrets.decode(head, chunks, decoded);
  }

  /**
   * Lists the chunks of {@code head}, read a moment ago, and decodes it. A writer that replaces a
   * chunked record writes the new chunks, updates the head, then deletes the old chunks, so the
   * chunks a head names may be gone by the time they are listed: when some are missing, the head is
   * read again and, if it changed, its new version is read in its place (at most {@value
   * #HEAD_READS} versions): a reader does not fail on a record one writer is replacing.
   *
   * @throws StaleRecordException when the head was deleted since it was read
   * @throws RecordFormatException when the head, as it stands, cannot be read
   */
  private StoredRelease decodeCurrent(String namespace, V1Secret head) {
    V1Secret current = head;
    for (int read = 1; ; read++) {
      Map<String, V1Secret> chunks = chunksOf(namespace, current);
      if (read == HEAD_READS || chunks.size() >= chunkCount(current)) {
        return decode(current, chunks);
      }
      String name = requireNonNull(current.getMetadata().getName());
      V1Secret again =
          secrets
              .get(namespace, name)
              .orElseThrow(
                  () ->
                      new StaleRecordException(
                          namespace + "/" + label(head, "name"),
                          revision(head),
                          "its record was deleted while it was read"));
      if (Objects.equals(
          again.getMetadata().getResourceVersion(), current.getMetadata().getResourceVersion())) {
        return decode(current, chunks);
      }
      current = again;
    }
  }

  /** Every revision of a release, newest first: one LIST, every record decoded. */
  List<StoredRelease> all(String namespace, String name) {
    return entriesOf(namespace, everySecret(namespace, name)).stream()
        .map(RecordEntry::stored)
        .toList();
  }

  /**
   * The record Secrets (heads and chunks) of every revision of a release: one LIST, read a Secret
   * at a time, keeping the heads and chunks alone (a Secret that carries the labels with another
   * part is not a record's).
   */
  private List<V1Secret> everySecret(String namespace, String name) {
    List<V1Secret> out = new ArrayList<>();
    secrets.each(
        namespace,
        "owner=capstan,name=" + name + "," + PART,
        null,
        ResourceApi.PAGE_SIZE,
        ReleaseRecords::headOrChunk,
        out::add);
    return out;
  }

  /** Whether a listed Secret (raw JSON) is a record's head or chunk, by its part label. */
  private static boolean headOrChunk(JsonObject secret) {
    String part = JsonTrees.text(secret, "metadata", "labels", PART);
    return "head".equals(part) || "chunk".equals(part);
  }

  /**
   * Every revision of a release, newest first, from its record Secrets' metadata: one LIST that
   * sends no record's bytes (every revision records the whole release, so a full history is ten
   * times the latest). Each head's labels say its revision and status; its record is read when
   * asked for ({@link #fetch}). A head that lacks those labels (written by no build of this class)
   * is read and decoded at once, alone.
   */
  List<RecordEntry> entries(String namespace, String name) {
    List<V1Secret> heads = new ArrayList<>();
    List<V1Secret> unlabelled = new ArrayList<>();
    Map<String, V1ObjectMeta> chunks = new HashMap<>();
    for (V1ObjectMeta meta :
        secrets.listMetadata(namespace, "owner=capstan,name=" + name + "," + PART)) {
      V1Secret s = new V1Secret().metadata(meta);
      if ("chunk".equals(label(s, PART))) {
        chunks.put(meta.getName(), meta);
      } else if ("head".equals(label(s, PART))) {
        (status(s) == null || revision(s) <= 0 ? unlabelled : heads).add(s);
      }
    }
    Every every = new Every(namespace, name, heads, decoded.maxStoredBytes());
    List<RecordEntry> out = new ArrayList<>();
    for (V1Secret head : unlabelled) {
      secrets
          .get(namespace, requireNonNull(head.getMetadata().getName()))
          .ifPresent(h -> out.add(RecordEntry.of(unlabelled(namespace, h))));
    }
    heads.sort(Comparator.comparingInt(RecordSecrets::revision).reversed());
    boolean newestLabelled = true;
    for (V1Secret head : heads) {
      boolean newest = newestLabelled;
      newestLabelled = false;
      out.add(
          RecordEntry.lazy(
              revision(head),
              requireNonNull(status(head)),
              () -> fetch(namespace, head, chunks, newest, every)));
    }
    out.sort(Comparator.comparingInt(RecordEntry::revision).reversed());
    return out;
  }

  /**
   * The record of a head without the revision and status labels every build of this class writes.
   *
   * @throws RecordFormatException when it cannot be read, saying how to remove it by name (its
   *     labels do not say which revision it is, so a removal by label would miss it)
   */
  private StoredRelease unlabelled(String namespace, V1Secret head) {
    try {
      return decodeCurrent(namespace, head);
    } catch (RecordFormatException e) {
      String secret = head.getMetadata().getName();
      throw new RecordFormatException(
          "release "
              + namespace
              + "/"
              + label(head, "name")
              + ": its record Secret "
              + secret
              + " has no revision and status labels, which every record Capstan writes has, and"
              + " cannot be read ("
              + e.getMessage()
              + "); if Capstan did not write it, delete it (kubectl -n "
              + namespace
              + " delete secret "
              + secret
              + ")",
          e);
    }
  }

  /**
   * The record of the head whose metadata is {@code listed}: as this store decoded it lately when
   * none of its Secrets was written since ({@link RecordSecrets#known}); else, for the {@code
   * newest} revision, a GET of its head (and a LIST of its chunks), and for an older one from
   * {@code every} revision's Secrets, one LIST shared by the entries of a listing (a history reads
   * them all) while they fit one record's share of this reader's memory, read alone as the newest
   * is when they do not.
   *
   * @throws StaleRecordException when the revision was deleted since it was listed
   */
  private StoredRelease fetch(
      String namespace,
      V1Secret listed,
      Map<String, V1ObjectMeta> chunks,
      boolean newest,
      Every every) {
    StoredRelease known = RecordSecrets.known(listed, chunks::get, decoded);
    if (known != null) {
      return known;
    }
    String headName = requireNonNull(listed.getMetadata().getName());
    Map<String, V1Secret> all = newest ? null : every.get();
    V1Secret head = all == null ? secrets.get(namespace, headName).orElse(null) : all.get(headName);
    if (head == null) {
      throw new StaleRecordException(
          namespace + "/" + label(listed, "name"),
          revision(listed),
          "its record was deleted while it was read");
    }
    return all == null ? decodeCurrent(namespace, head) : decode(head, all);
  }

  /**
   * The record Secrets of a release's listed revisions by name (their heads and the chunks those
   * name), read in one LIST when first asked for, keeping no other Secret; {@code null} when they
   * hold more than {@code maxBytes} (each revision is then read alone).
   */
  private final class Every {
    private final String namespace;
    private final String release;
    private final List<V1Secret> heads;
    private final long maxBytes;
    private boolean read;
    private @Nullable Map<String, V1Secret> byName;

    Every(String namespace, String release, List<V1Secret> heads, long maxBytes) {
      this.namespace = namespace;
      this.release = release;
      this.heads = heads;
      this.maxBytes = maxBytes;
    }

    synchronized @Nullable Map<String, V1Secret> get() {
      if (!read) {
        read = true;
        Set<String> names = new HashSet<>();
        for (V1Secret head : heads) {
          names.add(requireNonNull(head.getMetadata().getName()));
          addChunkNames(names, head);
        }
        byName = named(namespace, "owner=capstan,name=" + release + "," + PART, names, maxBytes);
      }
      return byName;
    }
  }

  /**
   * The Secrets matching {@code selector} whose names are {@code names}, by name: one LIST, read a
   * Secret at a time, keeping those alone; {@code null} when they hold more than {@code maxBytes}
   * of data (from the one that went over, nothing more is kept).
   */
  private @Nullable Map<String, V1Secret> named(
      String namespace, String selector, Set<String> names, long maxBytes) {
    Map<String, V1Secret> out = new HashMap<>();
    long[] held = {0};
    secrets.each(
        namespace,
        selector,
        null,
        ResourceApi.PAGE_SIZE,
        s -> held[0] <= maxBytes && names.contains(JsonTrees.text(s, "metadata", "name")),
        s -> {
          held[0] += dataBytes(s);
          if (held[0] <= maxBytes) {
            out.put(s.getMetadata().getName(), s);
          } else {
            out.clear();
          }
        });
    return held[0] <= maxBytes ? out : null;
  }

  /** The bytes of a Secret's data. */
  private static long dataBytes(V1Secret secret) {
    long bytes = 0;
    Map<String, byte[]> data = secret.getData();
    if (data != null) {
      for (byte[] v : data.values()) {
        bytes += v == null ? 0 : v.length;
      }
    }
    return bytes;
  }

  /** The most Secret names a read of a release's records looks for. */
  private static final int MAX_NAMES = 100_000;

  /**
   * Adds the names of {@code head}'s chunks to {@code names}, while they hold at most {@link
   * #MAX_NAMES}: the count is the head's word, and a read fails at the first chunk it lacks.
   */
  private static void addChunkNames(Set<String> names, V1Secret head) {
    List<String> chunks = chunkCount(head) > 0 ? RecordSecrets.chunkNames(head) : null;
    if (chunks != null) {
      for (String chunk : chunks) {
        if (names.size() >= MAX_NAMES || !names.add(chunk)) {
          break;
        }
      }
    }
  }

  /**
   * Every revision of each release of {@code names}, newest first, by release name (a release with
   * none is absent): one LIST (paged) selecting their record Secrets by a set of names, each entry
   * as {@link #entries(String, String)} gives it. The LIST keeps heads and chunks while their bytes
   * fit one record's share of this reader's memory ({@link DecodedRecords#maxStoredBytes}); when
   * they do not (a large history, or Secrets forged under the labels), it keeps nothing more and
   * each release is read alone, as {@link #entries(String, String)} reads it.
   */
  Map<String, List<RecordEntry>> entries(String namespace, Set<String> names) {
    Map<String, List<RecordEntry>> out = new TreeMap<>();
    if (names.isEmpty()) {
      return out;
    }
    String selector =
        "owner=capstan," + PART + ",name in (" + String.join(",", new TreeSet<>(names)) + ")";
    Map<String, List<V1Secret>> byRelease = new TreeMap<>();
    long max = decoded.maxStoredBytes();
    long[] held = {0};
    secrets.each(
        namespace,
        selector,
        null,
        ResourceApi.PAGE_SIZE,
        s ->
            held[0] <= max
                && headOrChunk(s)
                && names.contains(JsonTrees.text(s, "metadata", "labels", "name")),
        s -> {
          held[0] += dataBytes(s);
          if (held[0] <= max) {
            byRelease
                .computeIfAbsent(requireNonNull(label(s, "name")), r -> new ArrayList<>())
                .add(s);
          } else {
            byRelease.clear();
          }
        });
    if (held[0] > max) {
      for (String name : new TreeSet<>(names)) {
        List<RecordEntry> entries = entries(namespace, name);
        if (!entries.isEmpty()) {
          out.put(name, entries);
        }
      }
      return out;
    }
    byRelease.forEach(
        (release, found) -> {
          List<RecordEntry> entries = entriesOf(namespace, found);
          if (!entries.isEmpty()) {
            out.put(release, entries);
          }
        });
    return out;
  }

  /**
   * The revisions of one release whose record Secrets (heads and chunks) are {@code found}; a head
   * without Capstan's labels is read alone ({@link #unlabelled}).
   */
  private List<RecordEntry> entriesOf(String namespace, List<V1Secret> found) {
    Map<String, V1Secret> chunks = new HashMap<>();
    List<V1Secret> heads = new ArrayList<>();
    for (V1Secret s : found) {
      if ("chunk".equals(label(s, PART))) {
        chunks.put(s.getMetadata().getName(), s);
      } else if ("head".equals(label(s, PART))) {
        heads.add(s);
      }
    }
    List<RecordEntry> out = new ArrayList<>();
    for (V1Secret head : heads) {
      ReleaseStatus status = status(head);
      int revision = revision(head);
      out.add(
          status == null || revision <= 0
              ? RecordEntry.of(unlabelled(namespace, head))
              : RecordEntry.lazy(revision, status, () -> decode(head, chunks)));
    }
    out.sort(Comparator.comparingInt(RecordEntry::revision).reversed());
    return out;
  }

  /**
   * The latest revision of every release in the namespace (every namespace when it is null), by
   * namespace and name: one LIST of the heads that are not superseded (plus one LIST of chunks per
   * chunked latest record), and one decode per release.
   *
   * <p>Revisions stored as superseded (by earlier builds of Capstan, or imported from Helm) are
   * left out by label selector ({@value #NOT_SUPERSEDED}): a revision is stored so only once a
   * newer one is recorded, so the newest revision is never among them. Of the heads that remain
   * (the newest, and older deployed, failed or pending ones: the engine leaves a replaced revision
   * as stored), the highest revision of each release is decoded, the others only transferred. Heads
   * without a {@code status} label are kept by the selector, so records of any age are listed. A
   * release whose listed head is deleted before it is read (uninstalled meanwhile) is left out.
   */
  List<StoredRelease> latestOfEach(@Nullable String namespace) {
    List<StoredRelease> out = new ArrayList<>();
    for (V1Secret head : latestHeads(namespace).values()) {
      try {
        out.add(decodeCurrent(requireNonNull(head.getMetadata().getNamespace()), head));
      } catch (StaleRecordException deletedWhileRead) {
        // the release was uninstalled (or its revision deleted) after its head was listed
      }
    }
    return out;
  }

  /**
   * The latest revision of every release in the namespace, by name, as {@link #latestOfEach} finds
   * them, each decoded (and its chunks listed) only when its record is asked for: a head that
   * cannot be read fails alone. A head without the labels Capstan writes is decoded at once; when
   * that fails, its entry fails when asked for.
   */
  SortedMap<String, RecordEntry> latestEntries(String namespace) {
    SortedMap<String, RecordEntry> out = new TreeMap<>();
    latestEntriesOf(namespace).forEach((key, entry) -> out.put(key.get(1), entry));
    return out;
  }

  /**
   * As {@link #latestEntries}, of every namespace: by namespace, then name, each entry failing
   * alone when its record cannot be read.
   */
  SortedMap<String, SortedMap<String, RecordEntry>> latestEntriesInAllNamespaces() {
    SortedMap<String, SortedMap<String, RecordEntry>> out = new TreeMap<>();
    latestEntriesOf(null)
        .forEach(
            (key, entry) ->
                out.computeIfAbsent(key.get(0), k -> new TreeMap<>()).put(key.get(1), entry));
    return out;
  }

  /** The entries of {@link #latestEntries}, keyed by namespace and name. */
  private Map<List<String>, RecordEntry> latestEntriesOf(@Nullable String namespace) {
    Map<List<String>, RecordEntry> out = new LinkedHashMap<>();
    latestHeads(namespace)
        .forEach(
            (key, head) -> {
              String ns = key.get(0);
              Supplier<StoredRelease> decode = () -> decodeCurrent(ns, head);
              ReleaseStatus status = status(head);
              int revision = revision(head);
              if (status != null && revision > 0) {
                out.put(key, RecordEntry.lazy(revision, status, decode));
                return;
              }
              try {
                out.put(key, RecordEntry.of(decode.get()));
              } catch (RecordFormatException e) {
                out.put(
                    key,
                    RecordEntry.lazy(
                        Math.max(revision, 1),
                        ReleaseStatus.PENDING,
                        () -> {
                          throw e;
                        }));
              }
            });
    return out;
  }

  /**
   * The head of the highest revision of each release not stored as superseded, by namespace, then
   * name: one namespace's releases, or every namespace's ({@code namespace} null); one LIST.
   */
  private Map<List<String>, V1Secret> latestHeads(@Nullable String namespace) {
    Map<List<String>, V1Secret> latest =
        new TreeMap<>(
            Comparator.<List<String>, String>comparing(k -> k.get(0)).thenComparing(k -> k.get(1)));
    secrets.each(
        namespace,
        "owner=capstan," + PART + "=head," + NOT_SUPERSEDED,
        null,
        HEADS_PAGE_SIZE,
        s -> JsonTrees.text(s, "metadata", "labels", "name") != null,
        head -> {
          List<String> key =
              List.of(head.getMetadata().getNamespace(), requireNonNull(label(head, "name")));
          V1Secret current = latest.get(key);
          if (current == null || revision(head) > revision(current)) {
            latest.put(key, head);
          }
        });
    return latest;
  }

  /**
   * The chunks of a chunked head (one LIST, keeping only the Secrets the head names), or none.
   *
   * @throws RecordFormatException when they hold more bytes than one record may take of this
   *     reader's memory ({@link DecodedRecords#maxStoredBytes})
   */
  private Map<String, V1Secret> chunksOf(String namespace, V1Secret head) {
    Set<String> wanted = new HashSet<>();
    addChunkNames(wanted, head);
    if (!wanted.isEmpty()) {
      String selector =
          "owner=capstan,name="
              + label(head, "name")
              + ",version="
              + revision(head)
              + ","
              + PART
              + "=chunk";
      long max = decoded.maxStoredBytes();
      Map<String, V1Secret> chunks = named(namespace, selector, wanted, max);
      if (chunks == null) {
        throw new RecordFormatException(
            "release record Secret "
                + head.getMetadata().getName()
                + " names chunks that hold more than "
                + max
                + " bytes, more than one record may take of this reader's memory",
            null);
      }
      return chunks;
    }
    return Map.of();
  }

  /**
   * The {@code kubectl} command that deletes the record of one revision (its head and its chunks):
   * {@code kubectl -n shop delete secret -l owner=capstan,name=web,version=3}.
   */
  static String removal(String namespace, String name, int revision) {
    return "kubectl -n "
        + namespace
        + " delete secret -l owner=capstan,name="
        + name
        + ",version="
        + revision;
  }

  /** Stores a new revision: chunks first, the head last. */
  StoredRelease create(Release release) {
    RecordSecrets.Encoded e =
        RecordSecrets.Encoded.of(ReleaseRecordCodec.encode(release), chunkBytes);
    Map<String, V1ObjectMeta> written = new HashMap<>();
    List<String> created = writeChunks(release, e, written);
    try {
      V1Secret head = secrets.create(head(release, e, null));
      RecordSecrets.written(head, written::get, e, release, decoded);
      return new StoredRelease(release, e.token(head.getMetadata().getResourceVersion()));
    } catch (ClusterException ex) {
      deleteChunks(release.namespace(), created);
      if (ex.status() == 409) {
        throw new StaleRecordException(
            release.qualifiedName(), release.revision(), "the revision already exists");
      }
      throw ex;
    }
  }

  /** Replaces a revision if its head is still at the token's resourceVersion. */
  StoredRelease update(Release release, String expectedVersion) {
    RecordSecrets.Token old = RecordSecrets.Token.parse(expectedVersion);
    RecordSecrets.Encoded e =
        RecordSecrets.Encoded.of(ReleaseRecordCodec.encode(release), chunkBytes);
    boolean sameChunks = e.chunks() > 0 && e.digest().equals(old.digest());
    Map<String, V1ObjectMeta> written = new HashMap<>();
    List<String> created = sameChunks ? List.of() : writeChunks(release, e, written);
    V1Secret head;
    try {
      head = secrets.update(head(release, e, old.resourceVersion()));
    } catch (ClusterException ex) {
      deleteChunks(release.namespace(), created);
      if (ex.status() == 409 || ex.status() == 404) {
        throw new StaleRecordException(
            release.qualifiedName(),
            release.revision(),
            ex.status() == 404
                ? "the revision does not exist"
                : "expected version " + expectedVersion + ", the record was changed since");
      }
      throw ex;
    }
    if (old.chunks() > 0 && !old.digest().equals(e.digest())) {
      List<String> stale = new ArrayList<>();
      for (int i = 0; i < old.chunks(); i++) {
        stale.add(chunkName(release.name(), release.revision(), old.digest(), i));
      }
      deleteChunks(release.namespace(), stale);
    }
    RecordSecrets.written(head, written::get, e, release, decoded);
    return new StoredRelease(release, e.token(head.getMetadata().getResourceVersion()));
  }

  /** Deletes a revision's head and chunks: one DELETECOLLECTION by label. */
  void delete(String namespace, String name, int revision) {
    deleteWhere(namespace, "owner=capstan,name=" + name + ",version=" + revision + "," + PART);
  }

  /** Deletes every revision's head and chunks of a release: one DELETECOLLECTION by label. */
  void deleteAll(String namespace, String name) {
    deleteWhere(namespace, "owner=capstan,name=" + name + "," + PART);
  }

  private void deleteWhere(String namespace, String selector) {
    try {
      core.deleteCollectionNamespacedSecret(namespace).labelSelector(selector).execute();
    } catch (ApiException e) {
      throw secrets.failure("deletecollection", namespace, null, KubeFailure.of(e));
    }
  }

  /**
   * Creates the chunks of {@code e}, putting the metadata of each created one in {@code written};
   * returns the names of those created.
   */
  private List<String> writeChunks(
      Release release, RecordSecrets.Encoded e, Map<String, V1ObjectMeta> written) {
    List<String> created = new ArrayList<>();
    for (int i = 0; i < e.chunks(); i++) {
      String chunkName = chunkName(release.name(), release.revision(), e.digest(), i);
      V1Secret chunk = chunk(release, e, i, chunkName);
      try {
        written.put(chunkName, secrets.create(chunk).getMetadata());
        created.add(chunkName);
      } catch (ClusterException ex) {
        if (ex.status() != 409) {
          deleteChunks(release.namespace(), created);
          throw ex;
        }
        // A chunk of this digest exists already: the same bytes, from an earlier attempt.
      }
    }
    return created;
  }

  /** Best effort: a chunk left behind is removed with its revision. */
  private void deleteChunks(String namespace, List<String> names) {
    for (String chunk : names) {
      try {
        secrets.delete(namespace, chunk, null, null, null);
      } catch (ClusterException leftBehind) {
        // deleteRecord's DELETECOLLECTION removes it with the revision
      }
    }
  }

  /**
   * The latest revision of a release: the LIST of its record Secrets' metadata, then that
   * revision's record as {@link #fetch} reads it (none when this store decoded it since it was
   * written).
   */
  Optional<StoredRelease> latest(String namespace, String name) {
    List<RecordEntry> entries = entries(namespace, name);
    return entries.isEmpty() ? Optional.empty() : Optional.of(entries.get(0).stored());
  }
}
