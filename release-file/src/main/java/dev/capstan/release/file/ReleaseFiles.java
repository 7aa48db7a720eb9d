package dev.capstan.release.file;

import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.StrictMap;
import dev.capstan.common.StrictMap.Wording;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.DriftIgnore;
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
import java.util.Set;
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

  private static final Set<String> DOCUMENT =
      StrictMap.fields("apiVersion", "kind", "metadata", "spec");
  private static final Set<String> METADATA =
      StrictMap.fields("name", "namespace", "version", "source");
  private static final Set<String> SPEC =
      StrictMap.fields(
          "references", "services", "secrets", "configMaps", "volumes", "manifests", "options");
  private static final Set<String> OPTIONS =
      StrictMap.fields(
          "allowUnsafeCrdChanges", "driftIgnore", "replaceOnImmutable", "verifyOnServer");
  private static final Set<String> DRIFT_IGNORE =
      StrictMap.fields("kind", "name", "paths", "managers");
  private static final Set<String> SERVICE =
      StrictMap.fields(
          "name",
          "namespace",
          "image",
          "replicas",
          "command",
          "args",
          "ports",
          "env",
          "envFrom",
          "volumeMounts",
          "resources",
          "readinessProbe",
          "labels",
          "annotations");
  private static final Set<String> PORT = StrictMap.fields("name", "port", "protocol");
  private static final Set<String> ENV_FROM = StrictMap.fields("secret", "configMap");
  private static final Set<String> MOUNT = StrictMap.fields("volume", "mountPath", "readOnly");
  private static final Set<String> RESOURCES =
      StrictMap.fields("cpuRequest", "memoryRequest", "cpuLimit", "memoryLimit");
  private static final Set<String> PROBE =
      StrictMap.fields("path", "port", "initialDelaySeconds", "periodSeconds");
  private static final Set<String> SECRET =
      StrictMap.fields(
          "name", "namespace", "type", "stringData", "data", "fromEnv", "labels", "annotations");
  private static final Set<String> CONFIG_MAP =
      StrictMap.fields("name", "namespace", "data", "labels", "annotations");
  private static final Set<String> VOLUME =
      StrictMap.fields(
          "name",
          "namespace",
          "size",
          "storageClass",
          "accessModes",
          "reclaimPolicy",
          "labels",
          "annotations");

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
    Document doc = Document.read(tree, problems);
    if (doc == null) {
      throw new InvalidReleaseFileException(source, problems);
    }
    if (!API_VERSION.equals(doc.apiVersion())) {
      problems.add("apiVersion must be " + API_VERSION + ": " + quote(doc.apiVersion()));
    }
    if (!KIND.equals(doc.kind())) {
      problems.add("kind must be " + KIND + ": " + quote(doc.kind()));
    }
    String name = overrides.name() != null ? overrides.name() : doc.name();
    String namespace = overrides.namespace() != null ? overrides.namespace() : doc.namespace();
    if (name == null || name.isBlank()) {
      problems.add("metadata.name must be set (or passed as --release): " + quote(name));
      name = "";
    }
    if (namespace == null || namespace.isBlank()) {
      namespace = overrides.fallbackNamespace();
    }
    List<DriftIgnore> rules = new ArrayList<>();
    each(
        doc.driftIgnore(),
        "spec.options.driftIgnore",
        DRIFT_IGNORE,
        DriftIgnoreDoc::read,
        problems,
        (d, at) -> {
          List<String> wrong = DriftIgnore.problems(d.kind(), d.name(), d.paths(), d.managers());
          if (wrong.isEmpty()) {
            rules.add(new DriftIgnore(d.kind(), d.name(), d.paths(), d.managers()));
          } else {
            wrong.forEach(w -> problems.add(at + ": " + w));
          }
        });
    ReleaseOptions options =
        ReleaseOptions.defaults()
            .withAllowUnsafeCrdChanges(doc.allowUnsafeCrdChanges())
            .withDriftIgnore(rules)
            .withReplaceOnImmutable(doc.replaceOnImmutable())
            .withVerifyOnServer(doc.verifyOnServer());

    List<ResourceSpec> specs = new ArrayList<>();
    String ns = namespace;
    each(
        doc.services(),
        "spec.services",
        SERVICE,
        ServiceDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    each(
        doc.secrets(),
        "spec.secrets",
        SECRET,
        SecretDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns, at, env, problems)));
    each(
        doc.configMaps(),
        "spec.configMaps",
        CONFIG_MAP,
        ConfigMapDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    each(
        doc.volumes(),
        "spec.volumes",
        VOLUME,
        VolumeDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    List<ResourceRef> references = new ArrayList<>();
    List<@Nullable Object> refs = doc.references();
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
        doc.manifests() ? manifests(bytes, baseDirectory, ns, specs, problems) : List.of();

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
            name, namespace, doc.version(), doc.source(), payloads, references, options);
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
   * The objects of manifest text as {@link #manifestText} reads them, hooks among them, before they
   * are sorted into a release's objects and hooks: for a rendered chart, whose hooks of an event
   * Helm does not know are skipped, as Helm skips them, rather than refused.
   *
   * @throws InvalidReleaseFileException listing every problem with the document index and field
   */
  static List<Manifest> manifestObjects(String text, String source, Overrides overrides) {
    List<String> problems = new ArrayList<>();
    String namespace =
        overrides.namespace() == null || overrides.namespace().isBlank()
            ? overrides.fallbackNamespace()
            : overrides.namespace();
    ManifestReader reader = new ManifestReader(problems);
    reader.text(source, text);
    List<Manifest> manifests = reader.manifests(namespace, List.of());
    if (!problems.isEmpty()) {
      throw new InvalidReleaseFileException(source, problems);
    }
    return manifests;
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
   * label and the document index ({@code (configmap shop/web key all.yaml#2): ...}) and never quote
   * a value.
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
    for (ManifestInput input : inputs) {
      String text = input.text();
      if (text != null) {
        reader.text(input.label(), text);
      } else {
        reader.inline("(" + input.label() + ")", input.tree());
      }
    }
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

  /**
   * Binds each element of a list of {@code spec} and hands it on. An element is read in full, but
   * only its first problem is reported (and the element then left out), as one problem per element
   * is how release files report a wrong shape; a null element is skipped.
   */
  private static <T> void each(
      List<@Nullable Object> elements,
      String field,
      Set<String> allowed,
      java.util.function.Function<StrictMap, T> read,
      List<String> problems,
      ElementHandler<T> handler) {
    for (int i = 0; i < elements.size(); i++) {
      Object item = elements.get(i);
      if (item == null) {
        continue;
      }
      String at = field + "[" + i + "]";
      List<String> shape = new ArrayList<>();
      StrictMap m = StrictMap.open(item, at, at, allowed, shape, Wording.LABELLED);
      T element = m == null ? null : read.apply(m);
      if (element == null || !shape.isEmpty()) {
        problems.addAll(shape.subList(0, Math.min(1, shape.size())));
        continue;
      }
      try {
        handler.accept(element, at);
      } catch (IllegalArgumentException | NullPointerException e) {
        problems.add(at + ": " + e.getMessage());
      }
    }
  }

  private static String quote(@Nullable Object value) {
    return Escapes.quote(value);
  }

  // ------------------------------------------------------------------ document shape

  /**
   * The document's own fields, {@code metadata} and {@code spec}: the lists of {@code spec} are
   * bound element by element later, by {@link #each}.
   */
  record Document(
      @Nullable String apiVersion,
      @Nullable String kind,
      @Nullable String name,
      @Nullable String namespace,
      @Nullable String version,
      @Nullable String source,
      List<@Nullable Object> references,
      List<@Nullable Object> services,
      List<@Nullable Object> secrets,
      List<@Nullable Object> configMaps,
      List<@Nullable Object> volumes,
      boolean manifests,
      boolean allowUnsafeCrdChanges,
      List<@Nullable Object> driftIgnore,
      boolean replaceOnImmutable,
      boolean verifyOnServer) {

    /**
     * Binds the document's shape: its first problem is reported (and null returned), as the whole
     * shape is one problem in a release file.
     */
    static @Nullable Document read(Object tree, List<String> problems) {
      List<String> shape = new ArrayList<>();
      StrictMap root = StrictMap.open(tree, "", "document", DOCUMENT, shape, Wording.LABELLED);
      if (root == null) {
        problems.add(shape.get(0));
        return null;
      }
      String apiVersion = root.optionalString("apiVersion");
      String kind = root.optionalString("kind");
      StrictMap meta = root.object("metadata", METADATA);
      String name = meta == null ? null : meta.optionalString("name");
      String namespace = meta == null ? null : meta.optionalString("namespace");
      String version = meta == null ? null : meta.optionalString("version");
      String source = meta == null ? null : meta.optionalString("source");
      StrictMap spec = root.object("spec", SPEC);
      List<@Nullable Object> references = list(spec, "references");
      List<@Nullable Object> services = list(spec, "services");
      List<@Nullable Object> secrets = list(spec, "secrets");
      List<@Nullable Object> configMaps = list(spec, "configMaps");
      List<@Nullable Object> volumes = list(spec, "volumes");
      // only checked to be a list here: manifests(..) reads the entries from the file's text
      list(spec, "manifests");
      boolean manifests = spec != null && spec.has("manifests");
      StrictMap options = spec == null ? null : spec.object("options", OPTIONS);
      boolean allowUnsafeCrdChanges = options != null && options.bool("allowUnsafeCrdChanges");
      List<@Nullable Object> driftIgnore =
          options == null ? List.of() : options.list("driftIgnore");
      boolean replaceOnImmutable = options != null && options.bool("replaceOnImmutable");
      // on unless the file turns it off (the CLI turns it off for an atomic cast)
      boolean verifyOnServer =
          options == null || !options.has("verifyOnServer") || options.bool("verifyOnServer");
      Document doc =
          new Document(
              apiVersion,
              kind,
              name,
              namespace,
              version,
              source,
              references,
              services,
              secrets,
              configMaps,
              volumes,
              manifests,
              allowUnsafeCrdChanges,
              driftIgnore,
              replaceOnImmutable,
              verifyOnServer);
      if (!shape.isEmpty()) {
        problems.add(shape.get(0));
        return null;
      }
      return doc;
    }

    private static List<@Nullable Object> list(@Nullable StrictMap spec, String key) {
      return spec == null ? List.of() : spec.list(key);
    }
  }

  private static <T> @Nullable T readIf(
      @Nullable StrictMap m, java.util.function.Function<StrictMap, T> read) {
    return m == null ? null : read.apply(m);
  }

  record PortDoc(@Nullable String name, int port, @Nullable String protocol) {
    static PortDoc read(StrictMap m) {
      String name = m.optionalString("name");
      String protocol = m.optionalString("protocol");
      Integer port = m.integer("port", true);
      return new PortDoc(name, port == null ? 0 : port, protocol);
    }
  }

  record EnvFromDoc(@Nullable String secret, @Nullable String configMap) {
    static EnvFromDoc read(StrictMap m) {
      return new EnvFromDoc(m.optionalString("secret"), m.optionalString("configMap"));
    }
  }

  record MountDoc(@Nullable String volume, @Nullable String mountPath, boolean readOnly) {
    static MountDoc read(StrictMap m) {
      return new MountDoc(
          m.optionalString("volume"), m.optionalString("mountPath"), m.bool("readOnly"));
    }
  }

  record ResourcesDoc(
      @Nullable String cpuRequest,
      @Nullable String memoryRequest,
      @Nullable String cpuLimit,
      @Nullable String memoryLimit) {
    static ResourcesDoc read(StrictMap m) {
      return new ResourcesDoc(
          m.optionalString("cpuRequest"),
          m.optionalString("memoryRequest"),
          m.optionalString("cpuLimit"),
          m.optionalString("memoryLimit"));
    }
  }

  record ProbeDoc(
      @Nullable String path,
      int port,
      @Nullable Integer initialDelaySeconds,
      @Nullable Integer periodSeconds) {
    static ProbeDoc read(StrictMap m) {
      String path = m.optionalString("path");
      Integer initialDelaySeconds = m.integer("initialDelaySeconds", false);
      Integer periodSeconds = m.integer("periodSeconds", false);
      Integer port = m.integer("port", true);
      return new ProbeDoc(path, port == null ? 0 : port, initialDelaySeconds, periodSeconds);
    }
  }

  record ServiceDoc(
      @Nullable String name,
      @Nullable String namespace,
      @Nullable String image,
      @Nullable Integer replicas,
      @Nullable List<String> command,
      @Nullable List<String> args,
      List<PortDoc> ports,
      Map<String, String> env,
      List<EnvFromDoc> envFrom,
      List<MountDoc> volumeMounts,
      @Nullable ResourcesDoc resources,
      @Nullable ProbeDoc readinessProbe,
      Map<String, String> labels,
      Map<String, String> annotations) {

    static ServiceDoc read(StrictMap m) {
      return new ServiceDoc(
          m.optionalString("name"),
          m.optionalString("namespace"),
          m.optionalString("image"),
          m.integer("replicas", false),
          m.has("command") ? m.strings("command") : null,
          m.has("args") ? m.strings("args") : null,
          m.objects("ports", PORT).stream().map(e -> PortDoc.read(e.map())).toList(),
          m.stringMap("env"),
          m.objects("envFrom", ENV_FROM).stream().map(e -> EnvFromDoc.read(e.map())).toList(),
          m.objects("volumeMounts", MOUNT).stream().map(e -> MountDoc.read(e.map())).toList(),
          readIf(m.object("resources", RESOURCES), ResourcesDoc::read),
          readIf(m.object("readinessProbe", PROBE), ProbeDoc::read),
          m.stringMap("labels"),
          m.stringMap("annotations"));
    }

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
      for (PortDoc p : ports) {
        b.port(
            new ServiceSpec.Port(
                required(p.name(), "ports[].name"),
                p.port(),
                p.protocol() == null
                    ? ServiceSpec.Protocol.TCP
                    : enumValue(
                        ServiceSpec.Protocol.class, p.protocol(), "ports[].protocol", true)));
      }
      env.forEach(b::env);
      for (EnvFromDoc e : envFrom) {
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
      for (MountDoc m : volumeMounts) {
        ResourceRef.of(
            Kind.PERSISTENT_VOLUME_CLAIM, ns, required(m.volume(), "volumeMounts[].volume"));
        b.mount(
            new ServiceSpec.VolumeMount(
                required(m.volume(), "volumeMounts[].volume"),
                required(m.mountPath(), "volumeMounts[].mountPath"),
                m.readOnly()));
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
      labels.forEach(b::label);
      annotations.forEach(b::annotation);
      return b.build();
    }
  }

  record SecretDoc(
      @Nullable String name,
      @Nullable String namespace,
      @Nullable String type,
      Map<String, String> stringData,
      Map<String, String> data,
      Map<String, String> fromEnv,
      Map<String, String> labels,
      Map<String, String> annotations) {

    static SecretDoc read(StrictMap m) {
      return new SecretDoc(
          m.optionalString("name"),
          m.optionalString("namespace"),
          m.optionalString("type"),
          m.stringMap("stringData"),
          m.stringMap("data"),
          m.stringMap("fromEnv"),
          m.stringMap("labels"),
          m.stringMap("annotations"));
    }

    SecretSpec toSpec(
        String defaultNamespace,
        String at,
        Function<String, @Nullable String> env,
        List<String> problems) {
      Map<String, SecretValue> values = new LinkedHashMap<>();
      stringData.forEach((k, v) -> put(values, k, SecretValue.of(v)));
      data.forEach(
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
      fromEnv.forEach(
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
          new TreeMap<>(labels),
          new TreeMap<>(annotations));
    }

    private static void put(Map<String, SecretValue> values, String key, SecretValue v) {
      if (values.put(key, v) != null) {
        throw new IllegalArgumentException(
            "key " + quote(key) + " is given more than once across stringData, data and fromEnv");
      }
    }
  }

  /** A drift ignore rule of {@code spec.options.driftIgnore}: {@link DriftIgnore}. */
  record DriftIgnoreDoc(
      String kind, @Nullable String name, List<String> paths, List<String> managers) {
    static DriftIgnoreDoc read(StrictMap m) {
      return new DriftIgnoreDoc(
          m.string("kind"), m.optionalString("name"), m.strings("paths"), m.strings("managers"));
    }
  }

  record ConfigMapDoc(
      @Nullable String name,
      @Nullable String namespace,
      Map<String, String> data,
      Map<String, String> labels,
      Map<String, String> annotations) {

    static ConfigMapDoc read(StrictMap m) {
      return new ConfigMapDoc(
          m.optionalString("name"),
          m.optionalString("namespace"),
          m.stringMap("data"),
          m.stringMap("labels"),
          m.stringMap("annotations"));
    }

    ConfigMapSpec toSpec(String defaultNamespace) {
      return new ConfigMapSpec(
          namespace == null ? defaultNamespace : namespace,
          required(name, "name"),
          new TreeMap<>(data),
          new TreeMap<>(labels),
          new TreeMap<>(annotations));
    }
  }

  record VolumeDoc(
      @Nullable String name,
      @Nullable String namespace,
      @Nullable String size,
      @Nullable String storageClass,
      @Nullable List<String> accessModes,
      @Nullable String reclaimPolicy,
      Map<String, String> labels,
      Map<String, String> annotations) {

    static VolumeDoc read(StrictMap m) {
      return new VolumeDoc(
          m.optionalString("name"),
          m.optionalString("namespace"),
          m.optionalString("size"),
          m.optionalString("storageClass"),
          m.has("accessModes") ? m.strings("accessModes") : null,
          m.optionalString("reclaimPolicy"),
          m.stringMap("labels"),
          m.stringMap("annotations"));
    }

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
          new TreeMap<>(labels),
          new TreeMap<>(annotations));
    }
  }

  private static <T> T required(@Nullable T value, String field) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must be set");
    }
    return value;
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
