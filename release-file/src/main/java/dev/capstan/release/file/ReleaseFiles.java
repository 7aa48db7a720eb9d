package dev.capstan.release.file;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.StrictDocuments;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.SecretValue;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
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
   * The most bytes one release reads, its release file and every manifest file together: 64 MiB. A
   * release is kept whole in its record (for rollback), which must stay within the record codec's
   * bound when decoded.
   */
  public static final long MAX_RELEASE_BYTES = 64L << 20;

  /** The most documents one manifest file may hold: 10,000. */
  public static final int MAX_DOCUMENTS = 10_000;

  /**
   * The bounds a release file is read within: {@link #MAX_BYTES}, 100 levels of nesting, 20
   * aliases, one document.
   */
  public static final InputLimits LIMITS = InputLimits.oneDocument().withMaxBytes(MAX_BYTES);

  /** The limits of a file of plain manifests: as {@link #LIMITS}, with {@link #MAX_DOCUMENTS}. */
  static final InputLimits MANIFEST_LIMITS = LIMITS.withMaxDocuments(MAX_DOCUMENTS);

  private static final ObjectMapper MAPPER = mapper();

  private ReleaseFiles() {}

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
    List<String> problems = new ArrayList<>();
    Object tree = load(bytes, problems);
    if (tree == null) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return parse(tree, bytes, source, baseDirectory, overrides, env, problems);
  }

  /** {@link #parse(byte[], String, Path, Overrides, Function)} of a file already read as a tree. */
  private static ReleaseFile parse(
      Object tree,
      byte[] bytes,
      String source,
      @Nullable Path baseDirectory,
      Overrides overrides,
      Function<String, @Nullable String> env,
      List<String> problems) {
    Document doc = convert(tree, Document.class, "", problems);
    if (doc == null) {
      throw new InvalidReleaseFileException(source, problems);
    }
    if (!API_VERSION.equals(doc.apiVersion())) {
      problems.add("apiVersion must be " + API_VERSION + ": " + quote(doc.apiVersion()));
    }
    if (!KIND.equals(doc.kind())) {
      problems.add("kind must be " + KIND + ": " + quote(doc.kind()));
    }
    Metadata meta = doc.metadata() == null ? new Metadata(null, null, null, null) : doc.metadata();
    String name = overrides.name() != null ? overrides.name() : meta.name();
    String namespace = overrides.namespace() != null ? overrides.namespace() : meta.namespace();
    if (name == null || name.isBlank()) {
      problems.add("metadata.name must be set (or passed as --release): " + quote(name));
      name = "";
    }
    if (namespace == null || namespace.isBlank()) {
      namespace = overrides.fallbackNamespace();
    }
    Spec spec =
        doc.spec() == null ? new Spec(null, null, null, null, null, null, null) : doc.spec();
    ReleaseOptions options =
        ReleaseOptions.defaults()
            .withAllowUnsafeCrdChanges(
                spec.options() != null
                    && Boolean.TRUE.equals(spec.options().allowUnsafeCrdChanges()));

    List<ResourceSpec> specs = new ArrayList<>();
    String ns = namespace;
    each(
        spec.services(),
        "spec.services",
        ServiceDoc.class,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    each(
        spec.secrets(),
        "spec.secrets",
        SecretDoc.class,
        problems,
        (d, at) -> specs.add(d.toSpec(ns, at, env, problems)));
    each(
        spec.configMaps(),
        "spec.configMaps",
        ConfigMapDoc.class,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    each(
        spec.volumes(),
        "spec.volumes",
        VolumeDoc.class,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    List<ResourceRef> references = new ArrayList<>();
    List<?> refs = spec.references() == null ? List.of() : spec.references();
    for (int i = 0; i < refs.size(); i++) {
      Object ref = refs.get(i);
      try {
        if (!(ref instanceof String key)) {
          throw new IllegalArgumentException(
              "must be a key such as Secret/shop/external or Namespace//shop: " + quote(ref));
        }
        references.addAll(reference(key));
      } catch (IllegalArgumentException e) {
        problems.add("spec.references[" + i + "]: " + e.getMessage());
      }
    }

    List<Manifest> manifests =
        spec.manifests() == null ? List.of() : manifests(bytes, baseDirectory, ns, specs, problems);

    Payloads payloads = Payloads.empty();
    if (problems.isEmpty()) {
      try {
        List<ResourceSpec> all = new ArrayList<>(specs);
        all.addAll(manifests);
        payloads = Payloads.of(all);
      } catch (IllegalArgumentException e) {
        problems.add("spec: " + e.getMessage());
      }
    }
    if (problems.isEmpty()) {
      try {
        ReleaseSpec.of(namespace, name, Payloads.empty());
      } catch (IllegalArgumentException e) {
        problems.add("metadata: " + e.getMessage());
      }
    }
    ReleaseFile file =
        new ReleaseFile(
            name, namespace, meta.version(), meta.source(), payloads, references, options);
    if (problems.isEmpty()) {
      try {
        file.toSpec();
      } catch (IllegalArgumentException e) {
        problems.add("spec: " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return file;
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
        return parse(release, bytes, source, base, overrides, env, new ArrayList<>());
      }
      // plain manifests: read from the text at hand, not from the file again (and the bytes
      // let go of: only the text is kept while the documents are read)
      String label = String.valueOf(path.getFileName());
      long size = bytes.length;
      bytes = null;
      return manifests(source, overrides, reader -> reader.file(label, text, size));
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
    return manifests(
        source,
        overrides,
        reader -> {
          if (Files.isDirectory(path)) {
            reader.path("", path, ".");
          } else {
            Path base = path.toAbsolutePath().getParent();
            while (base != null && ManifestReader.isGlob(base.toString())) {
              base = base.getParent();
            }
            if (base == null) {
              reader.problem("no such file or directory: " + Escapes.quote(source));
            } else {
              reader.path("", base, base.relativize(path.toAbsolutePath()).toString());
            }
          }
        });
  }

  /** A release of the plain manifests {@code read} gives the reader. */
  private static ReleaseFile manifests(
      String source, Overrides overrides, java.util.function.Consumer<ManifestReader> read) {
    List<String> problems = new ArrayList<>();
    String name = overrides.name() == null ? "" : overrides.name();
    String namespace =
        overrides.namespace() == null || overrides.namespace().isBlank()
            ? overrides.fallbackNamespace()
            : overrides.namespace();
    if (name.isBlank()) {
      problems.add(
          "a release of plain manifests needs a name (capstan release cast NAME -f "
              + source
              + ")");
    }
    ManifestReader reader = new ManifestReader(problems);
    read.accept(reader);
    List<Manifest> manifests = reader.manifests(namespace, List.of());
    if (problems.isEmpty() && manifests.isEmpty()) {
      problems.add("holds no Kubernetes object");
    }
    Payloads payloads = Payloads.empty();
    if (problems.isEmpty()) {
      try {
        payloads = Payloads.of(manifests);
        ReleaseSpec.of(namespace, name, Payloads.empty());
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return new ReleaseFile(name, namespace, null, null, payloads, List.of());
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
    List<String> problems = new ArrayList<>();
    String name = overrides.name() == null ? "" : overrides.name();
    String namespace =
        overrides.namespace() == null || overrides.namespace().isBlank()
            ? overrides.fallbackNamespace()
            : overrides.namespace();
    if (name.isBlank()) {
      problems.add("a release of plain manifests needs a name");
    }
    ManifestReader reader = new ManifestReader(problems);
    reader.text(source, text);
    List<Manifest> manifests = reader.manifests(namespace, List.of());
    Payloads payloads = Payloads.empty();
    if (problems.isEmpty()) {
      try {
        payloads = Payloads.of(manifests);
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return new ReleaseFile(name, namespace, null, null, payloads, List.of());
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

  private static List<Manifest> manifests(
      byte[] bytes,
      @Nullable Path baseDirectory,
      String namespace,
      List<ResourceSpec> typed,
      List<String> problems) {
    List<ManifestYaml.Document> docs;
    try {
      docs =
          ManifestYaml.loadAll(StrictDocuments.decode(bytes), LIMITS).stream()
              .filter(d -> d.tree() != null)
              .toList();
    } catch (IllegalArgumentException | InvalidDocumentException e) {
      problems.add(String.valueOf(e.getMessage()).replaceFirst("^#0: ", "spec.manifests: "));
      return List.of();
    }
    if (!(docs.get(0).tree() instanceof Map<?, ?> doc)
        || !(doc.get("spec") instanceof Map<?, ?> spec)
        || !(spec.get("manifests") instanceof List<?> entries)) {
      return List.of();
    }
    ManifestReader reader = new ManifestReader(problems, bytes.length);
    for (int i = 0; i < entries.size(); i++) {
      String at = "spec.manifests[" + i + "]";
      Object entry = entries.get(i);
      if (entry instanceof Map<?, ?> map && map.containsKey("path") && !map.containsKey("kind")) {
        if (map.size() != 1 || !(map.get("path") instanceof String pattern)) {
          problems.add(
              at + ": a path entry must hold only path, a string (a file, directory or glob)");
        } else if (baseDirectory == null) {
          problems.add(
              at
                  + ".path: a release file parsed from memory cannot name files; read it with"
                  + " ReleaseFiles.read");
        } else {
          reader.path(at, baseDirectory, pattern);
        }
      } else {
        reader.inline(at, entry);
      }
    }
    return reader.manifests(namespace, typed);
  }

  /** Release-file spellings before kinds were open ({@code secret/shop/x}), as today's keys. */
  private static final Map<String, List<String>> LEGACY_REFERENCES =
      Map.of(
          "namespace", List.of("Namespace"),
          "storage_class", List.of("storage.k8s.io/StorageClass"),
          "volume", List.of("PersistentVolumeClaim"),
          "configmap", List.of("ConfigMap"),
          "secret", List.of("Secret"),
          "service", List.of("apps/Deployment", "Service"));

  private static List<ResourceRef> reference(String key) {
    String[] parts = key.split("/", -1);
    List<String> kinds = parts.length == 3 ? LEGACY_REFERENCES.get(parts[0]) : null;
    if (kinds == null) {
      return List.of(ResourceRef.parse(key));
    }
    return kinds.stream().map(k -> ResourceRef.parse(k + "/" + parts[1] + "/" + parts[2])).toList();
  }

  private static @Nullable Object load(byte[] bytes, List<String> problems) {
    List<@Nullable Object> docs;
    try {
      docs = StrictDocuments.readYaml(bytes, LIMITS);
    } catch (InvalidDocumentException e) {
      problems.add(e.getMessage());
      return null;
    }
    docs.removeIf(d -> d == null);
    if (docs.size() != 1) {
      problems.add("file must hold exactly one document: " + docs.size());
      return null;
    }
    if (!(docs.get(0) instanceof Map)) {
      problems.add("document must be a mapping with apiVersion, kind, metadata and spec");
      return null;
    }
    return docs.get(0);
  }

  private interface ElementHandler<T> {
    void accept(T element, String at);
  }

  private static <T> void each(
      @Nullable List<Object> elements,
      String field,
      Class<T> type,
      List<String> problems,
      ElementHandler<T> handler) {
    if (elements == null) {
      return;
    }
    for (int i = 0; i < elements.size(); i++) {
      String at = field + "[" + i + "]";
      T element = convert(elements.get(i), type, at, problems);
      if (element != null) {
        try {
          handler.accept(element, at);
        } catch (IllegalArgumentException | NullPointerException e) {
          problems.add(at + ": " + e.getMessage());
        }
      }
    }
  }

  private static <T> @Nullable T convert(
      Object tree, Class<T> type, String at, List<String> problems) {
    try {
      return MAPPER.convertValue(tree, type);
    } catch (IllegalArgumentException e) {
      problems.add(describe(at, e));
      return null;
    }
  }

  private static String describe(String at, IllegalArgumentException e) {
    if (e.getCause() instanceof JsonMappingException m) {
      String path =
          m.getPath().stream()
              .map(
                  r ->
                      r.getFieldName() != null
                          ? "." + Escapes.escape(r.getFieldName())
                          : "[" + r.getIndex() + "]")
              .collect(Collectors.joining());
      String full = (at + path).replaceFirst("^\\.", "");
      String message = Escapes.escape(String.valueOf(m.getOriginalMessage()));
      if (m instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException) {
        message = "unknown field";
      } else if (m.getCause() instanceof InputCoercionException c) {
        java.util.regex.Matcher value =
            java.util.regex.Pattern.compile("\\(([-0-9.eE+]+)\\)")
                .matcher(String.valueOf(c.getOriginalMessage()));
        message =
            "must be an integer from "
                + Integer.MIN_VALUE
                + " to "
                + Integer.MAX_VALUE
                + (value.find() ? ": " + value.group(1) : "");
      } else if (m instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException mi
          && mi.getTargetType() != null) {
        message = "must be " + typeName(mi.getTargetType());
        java.util.regex.Matcher text =
            java.util.regex.Pattern.compile("^Cannot coerce String value \\(\"(.*)\"\\)")
                .matcher(String.valueOf(m.getOriginalMessage()));
        if (text.find()) {
          message += ": " + quote(text.group(1));
        }
        if (mi instanceof com.fasterxml.jackson.databind.exc.InvalidFormatException f) {
          message +=
              mi.getTargetType() == String.class
                  ? "; quote it to keep the text: \""
                      + Escapes.escape(String.valueOf(f.getValue()))
                      + "\""
                  : ": " + Escapes.escape(String.valueOf(f.getValue()));
        }
      }
      return (full.isEmpty() ? "document" : full) + ": " + message;
    }
    return at + ": " + Escapes.escape(String.valueOf(e.getMessage()));
  }

  private static String typeName(Class<?> type) {
    if (type == Integer.class || type == int.class) {
      return "an integer";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (List.class.isAssignableFrom(type)) {
      return "a list";
    }
    return "a mapping";
  }

  private static String quote(@Nullable Object value) {
    return Escapes.quote(value);
  }

  private static ObjectMapper mapper() {
    JsonMapper mapper =
        JsonMappers.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();
    mapper
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    mapper
        .coercionConfigFor(LogicalType.Integer)
        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    mapper
        .coercionConfigFor(LogicalType.Boolean)
        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
    return mapper;
  }

  // ------------------------------------------------------------------ document shape

  record Document(
      @Nullable String apiVersion,
      @Nullable String kind,
      @Nullable Metadata metadata,
      @Nullable Spec spec) {}

  record Metadata(
      @Nullable String name,
      @Nullable String namespace,
      @Nullable String version,
      @Nullable String source) {}

  record Spec(
      @Nullable List<Object> references,
      @Nullable List<Object> services,
      @Nullable List<Object> secrets,
      @JsonProperty("configMaps") @Nullable List<Object> configMaps,
      @Nullable List<Object> volumes,
      @Nullable List<Object> manifests,
      @Nullable OptionsDoc options) {}

  /** {@code spec.options}: cast options a release file may set. */
  record OptionsDoc(@Nullable Boolean allowUnsafeCrdChanges) {}

  record PortDoc(String name, int port, @Nullable String protocol) {}

  record EnvFromDoc(
      @Nullable String secret, @JsonProperty("configMap") @Nullable String configMap) {}

  record MountDoc(String volume, String mountPath, @Nullable Boolean readOnly) {}

  record ResourcesDoc(
      @Nullable String cpuRequest,
      @Nullable String memoryRequest,
      @Nullable String cpuLimit,
      @Nullable String memoryLimit) {}

  record ProbeDoc(
      @Nullable String path,
      int port,
      @Nullable Integer initialDelaySeconds,
      @Nullable Integer periodSeconds) {}

  record ServiceDoc(
      String name,
      @Nullable String namespace,
      String image,
      @Nullable Integer replicas,
      @Nullable List<String> command,
      @Nullable List<String> args,
      @Nullable List<PortDoc> ports,
      @Nullable Map<String, String> env,
      @Nullable List<EnvFromDoc> envFrom,
      @Nullable List<MountDoc> volumeMounts,
      @Nullable ResourcesDoc resources,
      @Nullable ProbeDoc readinessProbe,
      @Nullable Map<String, String> labels,
      @Nullable Map<String, String> annotations) {

    ServiceSpec toSpec(String defaultNamespace) {
      String ns = namespace == null ? defaultNamespace : namespace;
      ServiceSpec.Builder b =
          ServiceSpec.builder(
                  namespace == null ? defaultNamespace : namespace, required(name, "name"))
              .image(required(image, "image"))
              .replicas(replicas == null ? 1 : replicas);
      if (command != null) {
        b.command(command.toArray(String[]::new));
      }
      if (args != null) {
        b.args(args.toArray(String[]::new));
      }
      for (PortDoc p : list(ports)) {
        b.port(
            new ServiceSpec.Port(
                required(p.name(), "ports[].name"),
                p.port(),
                p.protocol() == null
                    ? ServiceSpec.Protocol.TCP
                    : enumValue(
                        ServiceSpec.Protocol.class, p.protocol(), "ports[].protocol", true)));
      }
      map(env).forEach(b::env);
      for (EnvFromDoc e : list(envFrom)) {
        if ((e.secret() == null) == (e.configMap() == null)) {
          throw new IllegalArgumentException(
              "envFrom entries must name exactly one of secret, configMap");
        }
        if (e.secret() != null) {
          ResourceRef.of(Kind.SECRET, ns, e.secret());
          b.envFromSecret(e.secret());
        } else {
          String configMap = required(e.configMap(), "envFrom[].configMap");
          ResourceRef.of(Kind.CONFIG_MAP, ns, configMap);
          b.envFromConfigMap(configMap);
        }
      }
      for (MountDoc m : list(volumeMounts)) {
        ResourceRef.of(
            Kind.PERSISTENT_VOLUME_CLAIM, ns, required(m.volume(), "volumeMounts[].volume"));
        b.mount(
            new ServiceSpec.VolumeMount(
                required(m.volume(), "volumeMounts[].volume"),
                required(m.mountPath(), "volumeMounts[].mountPath"),
                Boolean.TRUE.equals(m.readOnly())));
      }
      if (resources != null) {
        b.resources(
            new ServiceSpec.Resources(
                resources.cpuRequest(),
                resources.memoryRequest(),
                resources.cpuLimit(),
                resources.memoryLimit()));
      }
      if (readinessProbe != null) {
        b.readinessProbe(
            new ServiceSpec.Probe(
                readinessProbe.path(),
                readinessProbe.port(),
                readinessProbe.initialDelaySeconds() == null
                    ? 0
                    : readinessProbe.initialDelaySeconds(),
                readinessProbe.periodSeconds() == null ? 10 : readinessProbe.periodSeconds()));
      }
      map(labels).forEach(b::label);
      map(annotations).forEach(b::annotation);
      return b.build();
    }
  }

  record SecretDoc(
      String name,
      @Nullable String namespace,
      @Nullable String type,
      @Nullable Map<String, String> stringData,
      @Nullable Map<String, String> data,
      @Nullable Map<String, String> fromEnv,
      @Nullable Map<String, String> labels,
      @Nullable Map<String, String> annotations) {

    SecretSpec toSpec(
        String defaultNamespace,
        String at,
        Function<String, @Nullable String> env,
        List<String> problems) {
      Map<String, SecretValue> values = new LinkedHashMap<>();
      map(stringData).forEach((k, v) -> put(values, k, SecretValue.of(v)));
      map(data)
          .forEach(
              (k, v) -> {
                byte[] decoded;
                try {
                  decoded = Base64.getDecoder().decode(v);
                } catch (IllegalArgumentException e) {
                  problems.add(
                      at
                          + ".data."
                          + Escapes.escape(k)
                          + ": value must be base64 (the value is not shown)");
                  return;
                }
                put(values, k, SecretValue.ofBytes(decoded));
              });
      map(fromEnv)
          .forEach(
              (k, variable) -> {
                String value = env.apply(variable);
                if (value == null) {
                  problems.add(
                      at
                          + ".fromEnv."
                          + Escapes.escape(k)
                          + ": environment variable "
                          + Escapes.escape(variable)
                          + " is not set");
                } else {
                  put(values, k, SecretValue.of(value));
                }
              });
      return new SecretSpec(
          namespace == null ? defaultNamespace : namespace,
          required(name, "name"),
          type == null ? "Opaque" : type,
          new TreeMap<>(values),
          new TreeMap<>(map(labels)),
          new TreeMap<>(map(annotations)));
    }

    private static void put(Map<String, SecretValue> values, String key, SecretValue v) {
      if (values.put(key, v) != null) {
        throw new IllegalArgumentException(
            "key " + quote(key) + " is given more than once across stringData, data and fromEnv");
      }
    }
  }

  record ConfigMapDoc(
      String name,
      @Nullable String namespace,
      @Nullable Map<String, String> data,
      @Nullable Map<String, String> labels,
      @Nullable Map<String, String> annotations) {

    ConfigMapSpec toSpec(String defaultNamespace) {
      return new ConfigMapSpec(
          namespace == null ? defaultNamespace : namespace,
          required(name, "name"),
          new TreeMap<>(map(data)),
          new TreeMap<>(map(labels)),
          new TreeMap<>(map(annotations)));
    }
  }

  record VolumeDoc(
      String name,
      @Nullable String namespace,
      String size,
      @Nullable String storageClass,
      @Nullable List<String> accessModes,
      @Nullable String reclaimPolicy,
      @Nullable Map<String, String> labels,
      @Nullable Map<String, String> annotations) {

    VolumeSpec toSpec(String defaultNamespace) {
      List<VolumeSpec.AccessMode> modes = new ArrayList<>();
      for (String m : accessModes == null ? List.of("ReadWriteOnce") : accessModes) {
        modes.add(
            java.util.Arrays.stream(VolumeSpec.AccessMode.values())
                .filter(a -> a.kubernetesName().equals(m))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "accessModes must be ReadWriteOnce, ReadOnlyMany, ReadWriteMany or"
                                + " ReadWriteOncePod: "
                                + quote(m))));
      }
      return new VolumeSpec(
          namespace == null ? defaultNamespace : namespace,
          required(name, "name"),
          required(size, "size"),
          storageClass,
          modes,
          reclaimPolicy == null
              ? VolumeSpec.ReclaimPolicy.DELETE
              : enumValue(VolumeSpec.ReclaimPolicy.class, reclaimPolicy, "reclaimPolicy", false),
          new TreeMap<>(map(labels)),
          new TreeMap<>(map(annotations)));
    }
  }

  private static <T> T required(@Nullable T value, String field) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    return value;
  }

  private static <T> List<T> list(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  private static Map<String, String> map(@Nullable Map<String, String> map) {
    return map == null ? Map.of() : map;
  }

  /** An enum constant by name, ignoring case; {@code upper} is how the format spells the names. */
  private static <E extends Enum<E>> E enumValue(
      Class<E> type, String value, String field, boolean upper) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        field
            + " must be one of "
            + java.util.Arrays.stream(type.getEnumConstants())
                .map(
                    e ->
                        upper
                            ? e.name()
                            : e.name().charAt(0) + e.name().substring(1).toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "))
            + ": "
            + quote(value));
  }
}
