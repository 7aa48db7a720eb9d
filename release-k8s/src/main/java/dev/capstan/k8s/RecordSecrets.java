package dev.capstan.k8s;

import dev.capstan.common.Escapes;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.error.ReleaseException;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The Secret format of release records ({@link ReleaseRecords}): the head {@code
 * capstan.release.v1.<name>.v<rev>} of type {@value #TYPE}, labelled {@code owner=capstan}, {@code
 * name}, {@code status}, {@code version} (the revision) and {@value #PART}{@code =head}, holds the
 * shared codec's bytes under {@value #DATA_KEY}; a chunked record's chunk Secrets ({@value
 * #CHUNK_TYPE}, {@value #PART}{@code =chunk}) are named {@code <head>.<digest>.<i>}, and the head
 * holds the SHA-256, size and chunk count of the whole record. Builds the Secrets of a record, and
 * reads (and verifies) one back; no request.
 */
final class RecordSecrets {
  static final String TYPE = "capstan.dev/release.v1";
  static final String CHUNK_TYPE = "capstan.dev/release.v1.chunk";
  static final String PART = Stamps.PREFIX + "record";
  static final String SHA256 = Stamps.PREFIX + "record-sha256";
  static final String SIZE = Stamps.PREFIX + "record-size";
  static final String CHUNKS = Stamps.PREFIX + "record-chunks";
  static final String DATA_KEY = "release";
  static final String CHUNK_KEY = "chunk";

  /** How many hex digits of the record's SHA-256 name its chunks. */
  static final int DIGEST_IN_NAME = 16;

  private RecordSecrets() {}

  /** The name of a revision's head Secret. */
  static String headName(String name, int revision) {
    return "capstan.release.v1." + name + ".v" + revision;
  }

  /** The name of chunk {@code index} of a revision's record of {@code digest}. */
  static String chunkName(String name, int revision, String digest, int index) {
    return headName(name, revision) + "." + digest + "." + index;
  }

  /** The head Secret of a record, at {@code resourceVersion} for an update. */
  static V1Secret head(Release release, Encoded e, @Nullable String resourceVersion) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(SHA256, e.sha256());
    annotations.put(SIZE, Integer.toString(e.bytes().length));
    annotations.put(CHUNKS, Integer.toString(e.chunks()));
    return new V1Secret()
        .apiVersion("v1")
        .kind("Secret")
        .metadata(
            new V1ObjectMeta()
                .name(headName(release.name(), release.revision()))
                .namespace(release.namespace())
                .resourceVersion(resourceVersion)
                .labels(labels(release, "head"))
                .annotations(annotations))
        .type(TYPE)
        .data(e.chunks() == 0 ? Map.of(DATA_KEY, e.bytes()) : Map.of());
  }

  /** Chunk {@code i} of a record, named {@code chunkName}. */
  static V1Secret chunk(Release release, Encoded e, int i, String chunkName) {
    return new V1Secret()
        .apiVersion("v1")
        .kind("Secret")
        .metadata(
            new V1ObjectMeta()
                .name(chunkName)
                .namespace(release.namespace())
                .labels(labels(release, "chunk")))
        .type(CHUNK_TYPE)
        .data(Map.of(CHUNK_KEY, e.chunk(i)));
  }

  private static Map<String, String> labels(Release release, String part) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("owner", "capstan");
    labels.put("name", release.name());
    labels.put("status", release.status().id());
    labels.put("version", Integer.toString(release.revision()));
    labels.put(PART, part);
    return labels;
  }

  /** The status its label gives a head, or {@code null} without one Capstan writes. */
  static @Nullable ReleaseStatus status(V1Secret head) {
    String id = label(head, "status");
    for (ReleaseStatus s : ReleaseStatus.values()) {
      if (s.id().equals(id)) {
        return s;
      }
    }
    return null;
  }

  /**
   * Reads and verifies one head (and its chunks), decoding the verified bytes with {@code decoded}
   * (which knows the records it decoded lately).
   */
  static StoredRelease decode(V1Secret head, Map<String, V1Secret> chunks, DecodedRecords decoded) {
    String name = head.getMetadata().getName();
    int count = chunkCount(head);
    String sha = annotation(head, SHA256);
    byte[] bytes;
    if (count == 0) {
      bytes = head.getData() == null ? null : head.getData().get(DATA_KEY);
      if (bytes == null) {
        throw new RecordFormatException("release record Secret " + name + " has no data", null);
      }
    } else {
      List<String> names = chunkNames(head);
      if (names == null) {
        throw new RecordFormatException(
            "release record Secret " + name + " is chunked but names no digest", null);
      }
      List<byte[]> parts = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        String chunkName = names.get(i);
        V1Secret chunk = chunks.get(chunkName);
        byte[] part =
            chunk == null || chunk.getData() == null ? null : chunk.getData().get(CHUNK_KEY);
        if (part == null) {
          throw new RecordFormatException(
              "release record Secret "
                  + name
                  + " is missing chunk "
                  + (i + 1)
                  + " of "
                  + count
                  + " ("
                  + chunkName
                  + ")",
              null);
        }
        parts.add(part);
      }
      bytes = concat(parts);
    }
    String verified = sha256(bytes);
    if (sha != null && !sha.equals(verified)) {
      throw new RecordFormatException(
          "release record Secret "
              + name
              + " fails verification: its "
              + bytes.length
              + " bytes do not have the recorded SHA-256 "
              + sha,
          null);
    }
    Release release = decoded.decode(verified, bytes);
    String identity =
        identity(
            head,
            c -> {
              V1Secret chunk = chunks.get(c);
              return chunk == null ? null : chunk.getMetadata();
            });
    if (identity != null) {
      decoded.remember(identity, verified);
    }
    return stored(head, release);
  }

  /**
   * The record {@code head} holds, as this store decoded it lately, when neither its head nor any
   * of its chunks (their metadata: {@code chunks}, by name) was written since: the same uid and
   * resourceVersion each ({@link DecodedRecords#known}); else {@code null}.
   */
  static @Nullable StoredRelease known(
      V1Secret head, Function<String, @Nullable V1ObjectMeta> chunks, DecodedRecords decoded) {
    String identity = identity(head, chunks);
    Release release = identity == null ? null : decoded.known(identity);
    return release == null ? null : stored(head, release);
  }

  /**
   * Tells {@code decoded} that the record {@code e}, which encodes {@code release}, was just
   * written as {@code head} and the chunks whose metadata {@code chunks} gives, so the store's next
   * read of it reads it from there ({@link #known}) rather than the Secrets' bytes (the codec
   * decodes what it encodes to an equal release). Nothing is kept when a chunk's metadata is
   * unknown (it existed already).
   */
  static void written(
      V1Secret head,
      Function<String, @Nullable V1ObjectMeta> chunks,
      Encoded e,
      Release release,
      DecodedRecords decoded) {
    String identity = identity(head, chunks);
    if (identity != null) {
      decoded.written(identity, e.sha256(), release, e.bytes().length);
    }
  }

  /**
   * {@code release}, stored as {@code head}: the version token of {@link Token}.
   *
   * @throws ReleaseException when the record names another release than the Secret it is kept in
   *     (its namespace, its {@code name} label): a record copied from another namespace (a restore
   *     or a clone) or written by hand, whose objects this release would otherwise take for its
   *     own, and prune or uninstall. Not a {@link RecordFormatException}: the record is readable,
   *     and the advice for an unreadable one (delete it, then adopt) would not make the copied
   *     objects, stamped as the other release's, this one's
   */
  private static StoredRelease stored(V1Secret head, Release release) {
    String namespace = head.getMetadata().getNamespace();
    String name = label(head, "name");
    if ((namespace != null && !namespace.equals(release.namespace()))
        || (name != null && !name.equals(release.name()))) {
      throw new ReleaseException(
          "release record Secret "
              + namespace
              + "/"
              + head.getMetadata().getName()
              + " records release "
              + Escapes.escape(release.namespace() + "/" + release.name())
              + ", not "
              + namespace
              + "/"
              + name
              + ": a record copied from another namespace (a restore or a clone) or written by"
              + " hand is not read, since this release would take that one's objects for its own;"
              + " the records of "
              + namespace
              + "/"
              + name
              + " are its Secrets labelled owner=capstan,name="
              + name);
    }
    int count = chunkCount(head);
    String sha = annotation(head, SHA256);
    String digest = count == 0 ? "" : String.valueOf(sha).substring(0, DIGEST_IN_NAME);
    return new StoredRelease(
        release,
        new Token(String.valueOf(head.getMetadata().getResourceVersion()), digest, count)
            .toString());
  }

  /**
   * What tells a stored record's bytes apart without reading them: the head's and each chunk's
   * name, uid and resourceVersion (the API server gives every write a new resourceVersion); {@code
   * null} when one is unknown (a chunk not found by {@code chunks}, a digest too short to name
   * chunks).
   */
  private static @Nullable String identity(
      V1Secret head, Function<String, @Nullable V1ObjectMeta> chunks) {
    V1ObjectMeta meta = head.getMetadata();
    if (meta == null || meta.getUid() == null || meta.getResourceVersion() == null) {
      return null;
    }
    StringBuilder out =
        new StringBuilder()
            .append(meta.getNamespace())
            .append('/')
            .append(meta.getName())
            .append('@')
            .append(meta.getUid())
            .append(':')
            .append(meta.getResourceVersion());
    List<String> names = chunkNames(head);
    if (names == null) {
      return null;
    }
    for (String name : names) {
      V1ObjectMeta chunk = chunks.apply(name);
      if (chunk == null || chunk.getUid() == null || chunk.getResourceVersion() == null) {
        return null;
      }
      out.append(' ')
          .append(name)
          .append('@')
          .append(chunk.getUid())
          .append(':')
          .append(chunk.getResourceVersion());
    }
    return out.toString();
  }

  /**
   * The names of a head's chunks, in order (none for a record the head holds itself), or {@code
   * null} for a chunked head whose digest is missing or too short to name them. Each name is made
   * when it is asked for: the count is the head's word, and a read stops at the first chunk
   * missing.
   */
  static @Nullable List<String> chunkNames(V1Secret head) {
    int count = chunkCount(head);
    if (count == 0) {
      return List.of();
    }
    String sha = annotation(head, SHA256);
    if (sha == null || sha.length() < DIGEST_IN_NAME) {
      return null;
    }
    String release = String.valueOf(label(head, "name"));
    int revision = revision(head);
    String digest = sha.substring(0, DIGEST_IN_NAME);
    return new AbstractList<>() {
      @Override
      public String get(int i) {
        return chunkName(release, revision, digest, Objects.checkIndex(i, count));
      }

      @Override
      public int size() {
        return count;
      }
    };
  }

  private static byte[] concat(List<byte[]> parts) {
    int size = parts.stream().mapToInt(p -> p.length).sum();
    byte[] out = new byte[size];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  static int chunkCount(V1Secret head) {
    String n = annotation(head, CHUNKS);
    try {
      return n == null ? 0 : Integer.parseInt(n);
    } catch (NumberFormatException e) {
      throw new RecordFormatException(
          "release record Secret " + head.getMetadata().getName() + " has a bad chunk count: " + n,
          e);
    }
  }

  static int revision(V1Secret s) {
    try {
      return Integer.parseInt(String.valueOf(label(s, "version")));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  static @Nullable String label(V1Secret s, String key) {
    return s.getMetadata() == null || s.getMetadata().getLabels() == null
        ? null
        : s.getMetadata().getLabels().get(key);
  }

  private static @Nullable String annotation(V1Secret s, String key) {
    return Stamps.annotation(s.getMetadata(), key);
  }

  static String sha256(byte[] bytes) {
    try {
      return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** A record's bytes, their SHA-256, and how they split into chunks. */
  static final class Encoded {
    private final byte[] bytes;
    private final String sha256;
    private final int chunkBytes;

    private Encoded(byte[] bytes, int chunkBytes) {
      this.bytes = bytes;
      this.sha256 = RecordSecrets.sha256(bytes);
      this.chunkBytes = chunkBytes;
    }

    static Encoded of(byte[] bytes, int chunkBytes) {
      return new Encoded(bytes, chunkBytes);
    }

    byte[] bytes() {
      return bytes;
    }

    String sha256() {
      return sha256;
    }

    /** 0 when the record fits in the head. */
    int chunks() {
      return bytes.length <= chunkBytes ? 0 : (bytes.length + chunkBytes - 1) / chunkBytes;
    }

    byte[] chunk(int i) {
      return Arrays.copyOfRange(
          bytes, i * chunkBytes, Math.min(bytes.length, (i + 1) * chunkBytes));
    }

    String digest() {
      return chunks() == 0 ? "" : sha256.substring(0, DIGEST_IN_NAME);
    }

    String token(@Nullable String resourceVersion) {
      return new Token(String.valueOf(resourceVersion), digest(), chunks()).toString();
    }
  }

  /**
   * A version token: the head's resourceVersion and, for a chunked record, its digest and chunk
   * count.
   */
  record Token(String resourceVersion, String digest, int chunks) {
    static Token parse(String token) {
      String[] parts = token.split(":", -1);
      try {
        if (parts.length == 1) {
          return new Token(parts[0], "", 0);
        }
        if (parts.length == 3) {
          return new Token(parts[0], parts[1], Integer.parseInt(parts[2]));
        }
      } catch (NumberFormatException e) {
        // fall through
      }
      throw new IllegalArgumentException(
          "record version must be RESOURCE_VERSION or RESOURCE_VERSION:DIGEST:CHUNKS: "
              + Escapes.quote(token));
    }

    @Override
    public String toString() {
      return chunks == 0 ? resourceVersion : resourceVersion + ":" + digest + ":" + chunks;
    }
  }
}
