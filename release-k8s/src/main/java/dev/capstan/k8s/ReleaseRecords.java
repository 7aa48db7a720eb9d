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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  /** Every revision of a release, newest first: one LIST, every record decoded. */
  List<StoredRelease> all(String namespace, String name) {
    return entriesOf(everySecret(namespace, name)).stream().map(RecordEntry::stored).toList();
  }

  /** The record Secrets (heads and chunks) of every revision of a release: one LIST. */
  private List<V1Secret> everySecret(String namespace, String name) {
    return secrets.list(namespace, "owner=capstan,name=" + name + "," + PART, null);
  }

  /**
   * Every revision of a release, newest first, from its record Secrets' metadata: one LIST that
   * sends no record's bytes (every revision records the whole release, so a full history is ten
   * times the latest). Each head's labels say its revision and status; its record is read when
   * asked for ({@link #fetch}). A release with a head that lacks those labels (written by no build
   * of this class) is read as {@link #all} reads it, each such head decoded at once.
   */
  List<RecordEntry> entries(String namespace, String name) {
    List<V1Secret> heads = new ArrayList<>();
    Map<String, V1ObjectMeta> chunks = new HashMap<>();
    for (V1ObjectMeta meta :
        secrets.listMetadata(namespace, "owner=capstan,name=" + name + "," + PART)) {
      V1Secret s = new V1Secret().metadata(meta);
      if ("chunk".equals(label(s, PART))) {
        chunks.put(meta.getName(), meta);
      } else if ("head".equals(label(s, PART))) {
        if (status(s) == null || revision(s) <= 0) {
          return entriesOf(everySecret(namespace, name));
        }
        heads.add(s);
      }
    }
    heads.sort(Comparator.comparingInt(RecordSecrets::revision).reversed());
    Supplier<Map<String, V1Secret>> every = new Every(() -> everySecret(namespace, name));
    List<RecordEntry> out = new ArrayList<>();
    for (V1Secret head : heads) {
      boolean newest = out.isEmpty();
      out.add(
          RecordEntry.lazy(
              revision(head),
              requireNonNull(status(head)),
              () -> fetch(namespace, head, chunks, newest, every)));
    }
    return out;
  }

  /**
   * The record of the head whose metadata is {@code listed}: as this store decoded it lately when
   * none of its Secrets was written since ({@link RecordSecrets#known}); else, for the {@code
   * newest} revision, a GET of its head (and a LIST of its chunks), and for an older one a read of
   * {@code every} revision's Secrets, one LIST shared by the entries of a listing (a history reads
   * them all). A head deleted since it was listed is looked for in {@code every}.
   *
   * @throws StaleRecordException when the revision was deleted since it was listed
   */
  private StoredRelease fetch(
      String namespace,
      V1Secret listed,
      Map<String, V1ObjectMeta> chunks,
      boolean newest,
      Supplier<Map<String, V1Secret>> every) {
    StoredRelease known = RecordSecrets.known(listed, chunks::get, decoded);
    if (known != null) {
      return known;
    }
    String headName = requireNonNull(listed.getMetadata().getName());
    if (newest) {
      Optional<V1Secret> head = secrets.get(namespace, headName);
      if (head.isPresent()) {
        return decode(head.get(), chunksOf(namespace, head.get()));
      }
    }
    Map<String, V1Secret> all = every.get();
    V1Secret head = all.get(headName);
    if (head == null) {
      throw new StaleRecordException(
          namespace + "/" + label(listed, "name"),
          revision(listed),
          "its record was deleted while it was read");
    }
    return decode(head, all);
  }

  /** The record Secrets of a release by name, read once, when first asked for. */
  private static final class Every implements Supplier<Map<String, V1Secret>> {
    private final Supplier<List<V1Secret>> read;
    private @Nullable Map<String, V1Secret> byName;

    Every(Supplier<List<V1Secret>> read) {
      this.read = read;
    }

    @Override
    public synchronized Map<String, V1Secret> get() {
      Map<String, V1Secret> out = byName;
      if (out == null) {
        out = new HashMap<>();
        for (V1Secret s : read.get()) {
          out.put(s.getMetadata().getName(), s);
        }
        byName = out;
      }
      return out;
    }
  }

  /**
   * Every revision of each release of {@code names}, newest first, by release name (a release with
   * none is absent): one LIST (paged) selecting their record Secrets by a set of names, each entry
   * as {@link #entries(String, String)} gives it.
   */
  Map<String, List<RecordEntry>> entries(String namespace, Set<String> names) {
    Map<String, List<RecordEntry>> out = new TreeMap<>();
    if (names.isEmpty()) {
      return out;
    }
    String selector =
        "owner=capstan," + PART + ",name in (" + String.join(",", new TreeSet<>(names)) + ")";
    Map<String, List<V1Secret>> byRelease = new TreeMap<>();
    for (V1Secret s : secrets.list(namespace, selector, null)) {
      String release = label(s, "name");
      if (release != null && names.contains(release)) {
        byRelease.computeIfAbsent(release, r -> new ArrayList<>()).add(s);
      }
    }
    byRelease.forEach(
        (release, found) -> {
          List<RecordEntry> entries = entriesOf(found);
          if (!entries.isEmpty()) {
            out.put(release, entries);
          }
        });
    return out;
  }

  /** The revisions of one release whose record Secrets (heads and chunks) are {@code found}. */
  private List<RecordEntry> entriesOf(List<V1Secret> found) {
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
              ? RecordEntry.of(decode(head, chunks))
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
   * without a {@code status} label are kept by the selector, so records of any age are listed.
   */
  List<StoredRelease> latestOfEach(@Nullable String namespace) {
    List<StoredRelease> out = new ArrayList<>();
    for (V1Secret head : latestHeads(namespace).values()) {
      out.add(decode(head, chunksOf(head.getMetadata().getNamespace(), head)));
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
              Supplier<StoredRelease> decode = () -> decode(head, chunksOf(ns, head));
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
    for (V1Secret head :
        secrets.list(
            namespace,
            "owner=capstan," + PART + "=head," + NOT_SUPERSEDED,
            null,
            HEADS_PAGE_SIZE)) {
      String release = label(head, "name");
      if (release == null) {
        continue;
      }
      List<String> key = List.of(head.getMetadata().getNamespace(), release);
      V1Secret current = latest.get(key);
      if (current == null || revision(head) > revision(current)) {
        latest.put(key, head);
      }
    }
    return latest;
  }

  /** The chunks of a chunked head (one LIST), or none. */
  private Map<String, V1Secret> chunksOf(String namespace, V1Secret head) {
    Map<String, V1Secret> chunks = new HashMap<>();
    if (chunkCount(head) > 0) {
      String selector =
          "owner=capstan,name="
              + label(head, "name")
              + ",version="
              + revision(head)
              + ","
              + PART
              + "=chunk";
      for (V1Secret c : secrets.list(namespace, selector, null)) {
        chunks.put(c.getMetadata().getName(), c);
      }
    }
    return chunks;
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
