package dev.capstan.release.file;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.release.model.Payloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads release files: a YAML (or JSON) document describing one release's services, secrets,
 * configmaps, volumes and references, turned into {@link Payloads}. Strict: unknown fields, wrong
 * types, duplicate keys, bad names and values are all reported together, each with its path.
 *
 * <pre>{@code
 * apiVersion: capstan.dev/v1
 * kind: Release
 * metadata: {name: web, namespace: shop, version: 1.4.2}
 * spec:
 *   services:
 *   - name: web
 *     image: ghcr.io/acme/web:1.4.2
 *     ports: [{name: http, port: 8080}]
 *     envFrom: [{secret: web-db}]
 *   secrets:
 *   - name: web-db
 *     fromEnv: {password: WEB_DB_PASSWORD}
 * }</pre>
 *
 * The full schema is in {@code release-file/README.md}.
 */
public final class ReleaseFiles {
  /** The {@code apiVersion} of release files. */
  public static final String API_VERSION = "capstan.dev/v1";

  /** The {@code kind} of release files. */
  public static final String KIND = "Release";

  /**
   * The largest file read, release file or manifests: 32 MiB, eight times the largest published
   * install bundles (a CRD bundle of 4.3 MiB whose largest CRD is 833 KB); each object in it is
   * still held to the API server's own limits ({@code ApiServerLimits}) before any write.
   */
  public static final int MAX_BYTES = 32 << 20;

  /**
   * The most bytes one release reads, its release file and every manifest file together (or every
   * source of a {@code Release} resource): 64 MiB. A release is kept whole in its record (for
   * rollback), which must stay within the record codec's bound when decoded. Held by {@link
   * #releaseBytes} before each input is read or kept.
   */
  public static final long MAX_RELEASE_BYTES = 64L << 20;

  /**
   * The most documents one manifest file, and one release (its inline documents and every file or
   * text it reads, together), may hold: 10,000. A release's are counted as they are read; none is
   * read past the limit.
   */
  public static final int MAX_DOCUMENTS = 10_000;

  /**
   * The bounds a release file is read within: {@link #MAX_BYTES}, 100 levels of nesting, 20
   * aliases, one document.
   */
  public static final InputLimits LIMITS = InputLimits.oneDocument().withMaxBytes(MAX_BYTES);

  /** The limits of a file of plain manifests: as {@link #LIMITS}, with {@link #MAX_DOCUMENTS}. */
  static final InputLimits MANIFEST_LIMITS = LIMITS.withMaxDocuments(MAX_DOCUMENTS);

  private ReleaseFiles() {}

  /**
   * The bytes a release has read once it reads {@code size} more, held to {@link
   * #MAX_RELEASE_BYTES}: checked before the input is read (a file, by its size) or kept (the text
   * of a ConfigMap or Secret), so that nothing past the limit is held.
   *
   * @param total the bytes the release has read so far
   * @param size the bytes of the next input
   * @param inputs what the release reads, for the message: {@code files}, {@code sources}
   * @return {@code total + size}
   * @throws IllegalArgumentException over the limit: {@code the release's files would total
   *     67108865 bytes with this one (1000 bytes); the limit is 67108864 bytes (64 MiB) per
   *     release}
   */
  public static long releaseBytes(long total, long size, String inputs) {
    if (total + size > MAX_RELEASE_BYTES) {
      throw new IllegalArgumentException(
          "the release's "
              + inputs
              + " would total "
              + (total + size)
              + " bytes with this one ("
              + size
              + " bytes); the limit is "
              + MAX_RELEASE_BYTES
              + " bytes ("
              + InputLimits.human(MAX_RELEASE_BYTES)
              + ") per release");
    }
    return total + size;
  }

  /**
   * Parses a release file.
   *
   * @param bytes the file's content (UTF-8 YAML or JSON)
   * @param source the file's name, shown in errors
   * @param overrides the namespace and name given on the command line, which win over the file's
   * @param env looks up environment variables for {@code fromEnv} secret values
   * @return the release described
   * @throws InvalidReleaseFileException listing every problem with its path
   */
  public static ReleaseFile parse(
      byte[] bytes, String source, Overrides overrides, Function<String, @Nullable String> env) {
    return parse(bytes, source, null, overrides, env);
  }

  /**
   * Parses a release file whose {@code spec.manifests} may name files by path.
   *
   * @param bytes the file's content (UTF-8 YAML or JSON)
   * @param source the file's name, shown in errors
   * @param baseDirectory the directory {@code spec.manifests[].path} entries are relative to (the
   *     release file's), or {@code null} to refuse path entries
   * @param overrides the namespace and name given on the command line, which win over the file's
   * @param env looks up environment variables for {@code fromEnv} secret values
   * @return the release described
   * @throws InvalidReleaseFileException listing every problem with its path
   */
  public static ReleaseFile parse(
      byte[] bytes,
      String source,
      @Nullable Path baseDirectory,
      Overrides overrides,
      Function<String, @Nullable String> env) {
    return ReleaseFileReader.parse(bytes, source, baseDirectory, overrides, env);
  }

  /**
   * Reads what {@code -f} names, as {@code kubectl apply -f} does: a release file (one {@code
   * capstan.dev/v1 Release} document), or plain Kubernetes manifests — a YAML or JSON file of one
   * or more documents, a directory of such files (its {@code .yaml}, {@code .yml} and {@code .json}
   * files, by name, not recursing) or a glob such as {@code k8s/*.yaml}.
   *
   * @param path the file, directory or glob
   * @param overrides the namespace and name; plain manifests need the name
   * @param env looks up environment variables for {@code fromEnv} secret values of a release file
   * @return the release described
   * @throws InvalidReleaseFileException listing every problem with its path
   */
  public static ReleaseFile read(
      Path path, Overrides overrides, Function<String, @Nullable String> env) {
    return read(path, path.toString(), overrides, env);
  }

  /**
   * As {@link #read(Path, Overrides, Function)}, naming the input {@code source} in problems (e.g.
   * the path as the user typed it).
   *
   * @throws InvalidReleaseFileException listing every problem with its path
   */
  public static ReleaseFile read(
      Path path, String source, Overrides overrides, Function<String, @Nullable String> env) {
    if (Files.exists(path) && !Files.isDirectory(path)) {
      byte @Nullable [] bytes;
      String text;
      try {
        // refuses devices, pipes and sockets, and stops reading past the limit
        bytes = BoundedInput.read(path, source, MAX_BYTES);
        text = StrictDocuments.decode(bytes);
      } catch (InvalidDocumentException e) {
        throw new InvalidReleaseFileException(source, List.of(e.getMessage()));
      }
      Object release;
      try {
        release = releaseFile(text);
      } catch (InvalidDocumentException e) {
        throw new InvalidReleaseFileException(source, List.of(e.getMessage()));
      }
      Path parent = path.toAbsolutePath().getParent();
      Path base = parent == null ? Path.of("") : parent;
      if (release == RELEASE_FILE_UNREADABLE) {
        return parse(bytes, source, base, overrides, env);
      }
      if (release != null) {
        return ReleaseFileReader.parse(
            release, bytes, source, base, overrides, env, new ArrayList<>());
      }
      // plain manifests: read from the text at hand, not from the file again (and the bytes
      // let go of: only the text is kept while the documents are read)
      String label = String.valueOf(path.getFileName());
      long size = bytes.length;
      bytes = null;
      return ManifestReleases.of(source, overrides, reader -> reader.file(label, text, size));
    }
    return manifests(path, source, overrides);
  }

  /**
   * Reads plain Kubernetes manifests — a file of one or more YAML or JSON documents, a directory of
   * such files or a glob — as one release named by {@code overrides} (namespaced objects without a
   * namespace go to its namespace: the overrides' namespace, else their default namespace, else
   * {@code default}). {@code v1 List} documents are read item by item.
   *
   * @param path the file, directory or glob
   * @param source the name of the input in problems
   * @param overrides the release's namespace and name (required)
   * @throws InvalidReleaseFileException listing every problem with the file, the document index and
   *     the field
   */
  public static ReleaseFile manifests(Path path, String source, Overrides overrides) {
    return ManifestReleases.of(
        source,
        overrides,
        reader -> {
          if (Files.isDirectory(path)) {
            reader.path("", path, ".", source);
          } else {
            Path base = path.toAbsolutePath().getParent();
            while (base != null && ManifestReader.isGlob(base.toString())) {
              base = base.getParent();
            }
            if (base == null) {
              reader.problem("no such file or directory: " + Escapes.quote(source));
            } else {
              reader.path("", base, base.relativize(path.toAbsolutePath()).toString(), source);
            }
          }
        });
  }

  /**
   * Reads plain Kubernetes manifests given as text — one or more YAML or JSON documents, as a tool
   * such as Helm renders them — as one release named by {@code overrides}, with the same checks as
   * {@link #manifests(Path, String, Overrides)}. Problems name the document ({@code (source#2):
   * ...}) and never quote a value.
   *
   * @param text the documents
   * @param source the name of the input in problems
   * @param overrides the release's namespace and name (required)
   * @return the release described
   * @throws InvalidReleaseFileException listing every problem with the document index and field
   */
  public static ReleaseFile manifestText(String text, String source, Overrides overrides) {
    return manifestInputs(List.of(ManifestInput.text(source, text)), source, overrides);
  }

  /**
   * Reads plain Kubernetes manifests from several inputs — documents already parsed into trees (the
   * objects a {@code Release} resource holds inline) and YAML or JSON streams (the manifests a
   * ConfigMap or Secret holds) — as one release named by {@code overrides}, in the order given,
   * with the same checks as {@link #manifests(Path, String, Overrides)}. Problems name the input's
   * label and the document index ({@code (configmap shop/web key all.yaml#2): ...}); those of a
   * Secret's text ({@link ManifestInput#secretText}) quote none of it, only the rule, the line and
   * column and a value's shape.
   *
   * @param inputs the inputs, in order
   * @param source the name of the whole input in problems
   * @param overrides the release's namespace and name (required)
   * @return the release described
   * @throws InvalidReleaseFileException listing every problem with its input, document index and
   *     field
   */
  public static ReleaseFile manifestInputs(
      List<ManifestInput> inputs, String source, Overrides overrides) {
    return manifestInputs(inputs, source, overrides, HeapBudget.UNBOUNDED);
  }

  /**
   * As {@link #manifestInputs(List, String, Overrides)}, holding what reading the release takes to
   * {@code budget} as it is read: each text's characters before it is parsed, each document's nodes
   * as they are built.
   *
   * @param budget the heap the release may take ({@link HeapBudget#UNBOUNDED}: no more than the
   *     byte and document limits)
   * @throws ReleaseTooLargeException at the first text or document over the budget; nothing more is
   *     read
   * @throws InvalidReleaseFileException listing every problem with its input, document index and
   *     field
   */
  public static ReleaseFile manifestInputs(
      List<ManifestInput> inputs, String source, Overrides overrides, HeapBudget budget) {
    return ManifestReleases.inputs(inputs, source, overrides, requireNonNull(budget, "budget"));
  }

  /**
   * The tree of {@code text} when it is a release file: one document with {@code apiVersion:
   * capstan.dev/v1}; {@link #RELEASE_FILE_UNREADABLE} when it names that apiVersion but cannot be
   * read (its problems are then reported as a release file's); {@code null} for plain manifests. A
   * file whose first document is not a release file is read no further here.
   *
   * @throws InvalidDocumentException when the first document cannot be read at all, and the file is
   *     no release file: refused as a whole, in one line
   */
  private static @Nullable Object releaseFile(String text) {
    Object[] first = {null};
    int[] documents = {0};
    try {
      StrictDocuments.readYaml(
          text,
          MANIFEST_LIMITS,
          (index, tree) -> {
            if (tree == null) {
              return true;
            }
            documents[0]++;
            if (first[0] == null) {
              first[0] = tree;
            }
            return isRelease(first[0]);
          });
    } catch (InvalidDocumentException e) {
      if (first[0] == null && !text.contains(API_VERSION)) {
        throw e; // the first document cannot be read: the file is refused as a whole
      }
      return isRelease(first[0]) || first[0] == null ? RELEASE_FILE_UNREADABLE : null;
    }
    return documents[0] == 1 && isRelease(first[0]) ? first[0] : null;
  }

  private static boolean isRelease(@Nullable Object tree) {
    return tree instanceof Map<?, ?> doc && API_VERSION.equals(doc.get("apiVersion"));
  }

  /** Marks a file taken as a release file whose documents cannot be read. */
  private static final Object RELEASE_FILE_UNREADABLE = new Object();
}
