package dev.capstan.release.file;

import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.TooManyNodesException;
import dev.capstan.common.Trees;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.Waves;
import dev.capstan.release.validate.ApiServerLimits;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Turns manifest documents, inline or read from files, into {@link Manifest}s, collecting every
 * problem with the place it comes from ({@code spec.manifests[2] (k8s/ingress.yaml#1)}). Secret
 * values never appear in a problem: only names, kinds and paths of fields do. A hidden text (one
 * read from a Secret, {@link ManifestInput#hidden}) is shown not even so far: its problems name the
 * rule, the line and column and a value's shape ({@code a string}), never an excerpt of it.
 */
final class ManifestReader {
  /** The most files one path entry (or one directory given to the CLI) may name. */
  static final int MAX_FILES = 1000;

  private final List<String> problems;

  /** The bytes read so far for this release, held to {@link ReleaseFiles#MAX_RELEASE_BYTES}. */
  private long total;

  /**
   * The documents read so far for this release, inline ones too, held to {@link
   * ReleaseFiles#MAX_DOCUMENTS}: once over, nothing more is read.
   */
  private int documents;

  /** The heap the release may take, and what it names in a refusal. */
  private final HeapBudget budget;

  private final String source;

  /** The characters of text read so far for this release, counted against {@link #budget}. */
  private long chars;

  /** The nodes of the documents read so far for this release, counted against {@link #budget}. */
  private long nodes;

  private final List<Located> entries = new ArrayList<>();
  private final java.util.Set<Located> syntaxErrors =
      java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

  /** A document, where it comes from, and whether it is a Secret's (never shown). */
  private record Located(String at, @Nullable Object tree, boolean hidden) {}

  /** A list item refused while the lists were read: reported in document order, with the rest. */
  private record Refused(String problem) {}

  ManifestReader(List<String> problems) {
    this(problems, 0);
  }

  /** A reader whose release already read {@code total} bytes (its release file). */
  ManifestReader(List<String> problems, long total) {
    this(problems, total, HeapBudget.UNBOUNDED, "");
  }

  /**
   * A reader whose release is held to {@code budget} as it is read: at the first text or document
   * over it throws {@link ReleaseTooLargeException} naming {@code source}, and reads nothing more.
   */
  ManifestReader(List<String> problems, HeapBudget budget, String source) {
    this(problems, 0, budget, source);
  }

  private ManifestReader(List<String> problems, long total, HeapBudget budget, String source) {
    this.problems = problems;
    this.total = total;
    this.budget = budget;
    this.source = source;
  }

  /** Adds one inline document. */
  void inline(String at, @Nullable Object tree) {
    if (counted(at)) {
      spend(at, 0, nodesOf(tree));
      entries.add(new Located(at, tree, false));
    }
  }

  /**
   * The nodes of {@code tree} as the budget counts them: none when nodes cost it nothing (no walk),
   * else counted until they pass what is left of it (a tree whose aliases expand without bound is
   * never walked whole).
   */
  private long nodesOf(@Nullable Object tree) {
    if (budget.nodeBytes() == 0) {
      return 0;
    }
    return ManifestYaml.nodes(tree, budget.nodesLeft(chars, nodes));
  }

  /**
   * Counts {@code moreChars} characters and {@code moreNodes} nodes against the release's budget.
   *
   * @throws ReleaseTooLargeException naming {@code at} once over
   */
  private void spend(String at, long moreChars, long moreNodes) {
    chars += moreChars;
    nodes += moreNodes;
    if (!budget.fits(chars, nodes)) {
      throw new ReleaseTooLargeException(source, at, chars, nodes, budget);
    }
  }

  /**
   * Counts one more document of the release, read at {@code at}: {@code false} once the release
   * holds {@link ReleaseFiles#MAX_DOCUMENTS}, reported at the first one over.
   */
  private boolean counted(String at) {
    if (full()) {
      return false;
    }
    documents++;
    if (full()) {
      problems.add(
          at
              + ": the release would hold "
              + documents
              + " documents with this one; the limit is "
              + ReleaseFiles.MAX_DOCUMENTS
              + " documents per release");
      return false;
    }
    return true;
  }

  /** Whether the release holds more documents than it may: nothing more is read. */
  private boolean full() {
    return documents > ReleaseFiles.MAX_DOCUMENTS;
  }

  /**
   * Adds every document of the files {@code pattern} names: a file, a directory (its {@code .yaml},
   * {@code .yml} and {@code .json} files, not recursing, by name) or a glob ({@code *}, {@code **},
   * {@code ?}, {@code [..]}, {@code {a,b}}; matching files in path order), relative to {@code
   * base}.
   *
   * @param at where the pattern was given ({@code spec.manifests[2]}), or {@code ""} for none
   */
  void path(String at, Path base, String pattern) {
    path(at, base, pattern, pattern);
  }

  /**
   * As {@link #path(String, Path, String)}, naming the pattern {@code shown} in problems: the path
   * as the user gave it, where {@code pattern} is relative to a {@code base} the user did not name.
   */
  void path(String at, Path base, String pattern, String shown) {
    String prefix = at.isEmpty() ? "" : at + " ";
    List<Path> files;
    try {
      files = files(base, pattern, shown);
    } catch (IllegalArgumentException e) {
      problems.add(at.isEmpty() ? e.getMessage() : at + ".path: " + e.getMessage());
      return;
    }
    for (Path file : files) {
      if (full()) {
        return;
      }
      String label = label(base, file);
      String text;
      try {
        text = read(file);
      } catch (IllegalArgumentException e) {
        problems.add(prefix + "(" + label + "): " + e.getMessage());
        continue;
      }
      add(prefix, label, text, false);
    }
  }

  /**
   * Adds every document of a file already read and decoded ({@code ReleaseFiles.read} of a single
   * manifest file), labelled {@code label#index}; its bytes count against the release's total.
   */
  void file(String label, String text, long bytes) {
    total += bytes;
    add("", label, text, false);
  }

  /**
   * Adds every document of a YAML stream given as text (for example a rendered Helm manifest),
   * labelled {@code label#index} in problems.
   */
  void text(String label, String text) {
    text(label, text, false);
  }

  /**
   * As {@link #text(String, String)}; a {@code hidden} text's problems show none of it (a Secret's:
   * {@link ManifestInput#hidden}).
   */
  void text(String label, String text, boolean hidden) {
    add("", label, text, hidden);
  }

  /**
   * Reads the documents of {@code text} one at a time, in one pass within the limits, counting each
   * against the release's (the rest is not read once over).
   */
  private void add(String prefix, String label, String text, boolean hidden) {
    if (full()) {
      return;
    }
    spend(prefix + "(" + label + ")", text.length(), 0);
    InputLimits limits =
        budget.equals(HeapBudget.UNBOUNDED)
            ? ReleaseFiles.MANIFEST_LIMITS
            : ReleaseFiles.MANIFEST_LIMITS.withMaxNodes(budget.nodesLeft(chars, nodes));
    int[] next = {0};
    long before = nodes;
    String error;
    try {
      error =
          ManifestYaml.loadAll(
              text,
              limits,
              hidden,
              doc -> {
                String at = prefix + "(" + label + "#" + doc.index() + ")";
                next[0] = doc.index() + 1;
                if (!counted(at)) {
                  return false;
                }
                spend(at, 0, nodesOf(doc.tree()));
                if (doc.tree() != null) {
                  entries.add(new Located(at, doc.tree(), hidden));
                }
                return true;
              });
    } catch (TooManyNodesException e) {
      // at least one node more than the budget leaves: the document is not built further
      throw new ReleaseTooLargeException(
          source,
          prefix + "(" + label + "#" + next[0] + ")",
          chars,
          Math.max(nodes, before + e.limit() + 1L),
          budget);
    }
    if (error != null) {
      Located failed =
          new Located(prefix + "(" + label + error.replaceFirst(":", "):"), null, hidden);
      entries.add(failed);
      syntaxErrors.add(failed);
    }
  }

  /** Adds a problem found while gathering the input. */
  void problem(String problem) {
    problems.add(problem);
  }

  /** Whether no document was added. */
  boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * The items of a list document, as kubectl reads them: {@code kind: List} (of any apiVersion)
   * holds objects of any kind; a typed list ({@code ConfigMapList}, {@code
   * rbac.authorization.k8s.io/v1 RoleList}, any {@code <Kind>List} with {@code items}) holds
   * objects of its item kind, each of which gets the list's apiVersion and the item kind when it
   * names none, and is refused, naming the item, when it names another.
   */
  private void listItems(
      Located entry, Map<?, ?> tree, String apiVersion, String kind, List<@Nullable Located> out) {
    if (!(tree.get("items") instanceof List<?> items)) {
      out.add(
          new Located(
              entry.at(),
              new Refused(
                  "items must be a list of objects in a "
                      + kind
                      + ": "
                      + describe(tree.get("items"), entry.hidden())),
              entry.hidden()));
      return;
    }
    String itemKind =
        kind.equals("List") ? null : kind.substring(0, kind.length() - "List".length());
    for (int i = 0; i < items.size(); i++) {
      String at = entry.at() + ".items[" + i + "]";
      Object item = items.get(i);
      if (itemKind != null && item instanceof Map<?, ?> m) {
        Object itemKindGiven = m.get("kind");
        Object itemApiVersion = m.get("apiVersion");
        if (itemKindGiven != null && !itemKind.equals(itemKindGiven)) {
          out.add(
              new Located(
                  at,
                  new Refused(
                      "kind must be "
                          + itemKind
                          + " in a "
                          + kind
                          + ": "
                          + describe(String.valueOf(itemKindGiven), entry.hidden())),
                  entry.hidden()));
          continue;
        }
        if (itemApiVersion != null && !apiVersion.equals(itemApiVersion)) {
          out.add(
              new Located(
                  at,
                  new Refused(
                      "apiVersion must be "
                          + apiVersion
                          + " in a "
                          + kind
                          + " of that apiVersion: "
                          + describe(String.valueOf(itemApiVersion), entry.hidden())),
                  entry.hidden()));
          continue;
        }
        Map<String, Object> filled = new java.util.LinkedHashMap<>();
        filled.put("apiVersion", apiVersion);
        filled.put("kind", itemKind);
        m.forEach((k, v) -> filled.put(String.valueOf(k), v));
        item = filled;
      }
      out.add(new Located(at, item, entry.hidden()));
    }
  }

  /**
   * The manifests, checked; problems are added to the list given at construction.
   *
   * @param namespace the namespace of namespaced objects that name none
   * @param typed the typed entries of the same release, for duplicates
   */
  List<Manifest> manifests(String namespace, List<ResourceSpec> typed) {
    Map<String, Kind> defined = new HashMap<>();
    List<@Nullable Located> documents = new ArrayList<>();
    for (Located entry : entries) {
      if (syntaxErrors.contains(entry)) {
        documents.add(entry);
      } else if (entry.tree() instanceof Map<?, ?> tree
          && tree.get("apiVersion") instanceof String apiVersion
          && tree.get("kind") instanceof String kind
          && kind.endsWith("List")
          && (kind.equals("List") || tree.containsKey("items"))) {
        listItems(entry, tree, apiVersion, kind, documents);
      } else {
        documents.add(entry);
      }
    }
    entries.clear();
    for (Located doc : documents) {
      if (doc != null && doc.tree() instanceof Map<?, ?> tree) {
        crdKind(tree, doc.at(), defined);
      }
    }
    Map<ResourceRef, String> seen = new LinkedHashMap<>();
    for (ResourceSpec spec : typed) {
      for (Manifest object : spec.render()) {
        seen.putIfAbsent(object.ref(), typedAt(spec));
      }
    }
    List<Manifest> out = new ArrayList<>();
    for (int i = 0; i < documents.size(); i++) {
      Located doc = java.util.Objects.requireNonNull(documents.get(i));
      // each document's tree is let go once its manifest (a copy) is made: at most one of the
      // two is held per document
      documents.set(i, null);
      if (doc.tree() instanceof Refused refused) {
        problems.add(doc.at() + ": " + refused.problem());
        continue;
      }
      Manifest manifest = check(doc, namespace, defined);
      if (manifest == null) {
        continue;
      }
      String first = seen.putIfAbsent(manifest.ref(), doc.at());
      if (first != null) {
        problems.add(
            doc.at() + ": " + manifest.ref().key() + " is given twice (also at " + first + ")");
        continue;
      }
      out.add(manifest);
    }
    return out;
  }

  private @Nullable Manifest check(Located doc, String namespace, Map<String, Kind> defined) {
    String at = doc.at();
    if (syntaxErrors.contains(doc)) {
      problems.add(at);
      return null;
    }
    if (!(doc.tree() instanceof Map<?, ?> tree)) {
      problems.add(
          at
              + ": a manifest must be a mapping with apiVersion, kind and metadata: "
              + describe(doc.tree(), doc.hidden()));
      return null;
    }
    int before = problems.size();
    String apiVersion = requiredString(tree.get("apiVersion"), at, "apiVersion", doc.hidden());
    String kind = requiredString(tree.get("kind"), at, "kind", doc.hidden());
    Object metadata = tree.get("metadata");
    String name = null;
    if (!(metadata instanceof Map<?, ?> meta)) {
      problems.add(
          at
              + ": metadata must be a mapping with a name: "
              + (metadata == null ? "missing" : describe(metadata, doc.hidden())));
    } else {
      name = requiredString(meta.get("name"), at, "metadata.name", doc.hidden());
    }
    if (problems.size() > before || apiVersion == null || kind == null || name == null) {
      return null;
    }
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    if (ReleaseFiles.API_VERSION.equals(apiVersion) && ReleaseFiles.KIND.equals(kind)) {
      problems.add(
          at
              + ": a Capstan release file is not a manifest; give it alone with -f (or cast it as"
              + " its own release)");
      return null;
    }
    Kind builtIn = Kind.builtIn(group, kind);
    Kind known = builtIn != null ? null : defined.get(group.isEmpty() ? kind : group + "/" + kind);
    try {
      @SuppressWarnings("unchecked")
      Map<String, ?> object = (Map<String, ?>) tree;
      Manifest manifest = Manifest.of(object, namespace, known);
      Waves.of(manifest);
      if (doc.hidden()) {
        // what the cast's ApiServerLimits would refuse showing a value (a label's, a ConfigMap's
        // data, a number), refused here where no value is shown
        ApiServerLimits.check(manifest.content(), true).forEach(p -> problems.add(at + ": " + p));
        if (problems.size() > before) {
          return null;
        }
      }
      return manifest;
    } catch (IllegalArgumentException e) {
      problems.add(at + ": " + (doc.hidden() ? withoutValues(e) : e.getMessage()));
      return null;
    }
  }

  /**
   * A manifest's refusal without what it quotes: every value in it is quoted ({@code '...'}), so
   * the words before the first quote, then {@link Escapes#NOT_SHOWN}.
   */
  private static String withoutValues(IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    int quote = message.indexOf('\'');
    return quote < 0
        ? message
        : message.substring(0, quote).stripTrailing() + " " + Escapes.NOT_SHOWN;
  }

  private @Nullable String requiredString(
      @Nullable Object value, String at, String field, boolean hidden) {
    if (value instanceof String s && !s.isEmpty()) {
      return s;
    }
    problems.add(
        at
            + ": "
            + field
            + " must be a non-empty string: "
            + (value == null ? "missing" : describe(value, hidden)));
    return null;
  }

  /**
   * A value for a message: a scalar quoted, a collection by its shape only; a hidden text's scalar
   * by its shape too ({@code a string (the value is not shown)}).
   */
  private static String describe(@Nullable Object value, boolean hidden) {
    if (value instanceof Map<?, ?> || value instanceof List<?>) {
      return Trees.shape(value);
    }
    return hidden ? Trees.shape(value) + " " + Escapes.NOT_SHOWN : Escapes.quote(value);
  }

  /** Records the kind a CustomResourceDefinition defines, so its objects get the right scope. */
  private void crdKind(Map<?, ?> tree, String at, Map<String, Kind> defined) {
    if (!"CustomResourceDefinition".equals(tree.get("kind"))
        || !(tree.get("apiVersion") instanceof String api)
        || !api.startsWith("apiextensions.k8s.io/")) {
      return;
    }
    try {
      Kind kind = Kind.definedBy(tree);
      if (kind != null) {
        defined.put(kind.key(), kind);
      }
    } catch (IllegalArgumentException e) {
      problems.add(at + ": spec: " + e.getMessage());
    }
  }

  private static String typedAt(ResourceSpec spec) {
    if (spec instanceof ServiceSpec s) {
      return "spec.services (" + s.name() + ")";
    }
    if (spec instanceof SecretSpec s) {
      return "spec.secrets (" + s.name() + ")";
    }
    if (spec instanceof ConfigMapSpec c) {
      return "spec.configMaps (" + c.name() + ")";
    }
    if (spec instanceof Manifest) {
      return "spec.manifests";
    }
    return "spec.volumes (" + spec.ref().name() + ")";
  }

  // ------------------------------------------------------------------ files

  private static List<Path> files(Path base, String pattern, String shown) {
    if (pattern.isEmpty()) {
      throw new IllegalArgumentException(
          "must name a file, a directory or a glob: " + Escapes.quote(shown));
    }
    if (!isGlob(pattern)) {
      Path path = base.resolve(pattern).normalize();
      if (Files.isDirectory(path)) {
        List<Path> files = list(path, 1, p -> isManifestFile(p));
        if (files.isEmpty()) {
          throw new IllegalArgumentException(
              "directory holds no .yaml, .yml or .json file: " + Escapes.quote(shown));
        }
        return files;
      }
      if (!Files.isRegularFile(path)) {
        throw new IllegalArgumentException("no such file or directory: " + Escapes.quote(shown));
      }
      return List.of(path);
    }
    String[] steps = pattern.split("/", -1);
    StringBuilder root = new StringBuilder(pattern.startsWith("/") ? "/" : "");
    int fixed = 0;
    while (fixed < steps.length - 1 && !isGlob(steps[fixed])) {
      if (!steps[fixed].isEmpty()) {
        root.append(steps[fixed]).append('/');
      }
      fixed++;
    }
    Path start = base.resolve(root.toString()).normalize();
    int depth = pattern.contains("**") ? Integer.MAX_VALUE : steps.length - fixed;
    PathMatcher matcher =
        FileSystems.getDefault().getPathMatcher("glob:" + base.resolve(pattern).normalize());
    List<Path> files =
        Files.isDirectory(start) ? list(start, depth, p -> matcher.matches(p)) : List.of();
    if (files.isEmpty()) {
      throw new IllegalArgumentException("matches no file: " + Escapes.quote(shown));
    }
    return files;
  }

  static boolean isGlob(String s) {
    return s.chars().anyMatch(c -> c == '*' || c == '?' || c == '[' || c == '{');
  }

  private static boolean isManifestFile(Path p) {
    String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json");
  }

  private static List<Path> list(Path dir, int depth, java.util.function.Predicate<Path> keep) {
    try (Stream<Path> walk = Files.walk(dir, depth)) {
      List<Path> files =
          walk.filter(Files::isRegularFile).filter(keep).sorted().limit(MAX_FILES + 1L).toList();
      if (files.size() > MAX_FILES) {
        throw new IllegalArgumentException("names more than " + MAX_FILES + " files");
      }
      return files;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  private static String label(Path base, Path file) {
    Path relative;
    try {
      relative = base.toAbsolutePath().normalize().relativize(file.toAbsolutePath().normalize());
    } catch (IllegalArgumentException e) {
      relative = file;
    }
    return relative.toString().replace('\\', '/');
  }

  /**
   * The text of one manifest file: at most {@link ReleaseFiles#MAX_BYTES}, and within what is left
   * of the release's {@link ReleaseFiles#MAX_RELEASE_BYTES}, both checked before it is read.
   */
  private String read(Path file) {
    try {
      ReleaseFiles.releaseBytes(total, Files.size(file), "files");
      byte[] bytes = BoundedInput.read(file, file.getFileName().toString(), ReleaseFiles.MAX_BYTES);
      total = ReleaseFiles.releaseBytes(total, bytes.length, "files");
      return StrictDocuments.decode(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read " + Escapes.quote(file.getFileName()) + ": " + e.getClass().getSimpleName(),
          e);
    } catch (InvalidDocumentException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** UTF-8 text, strictly decoded. */
  static String text(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("file must be UTF-8 text", e);
    }
  }
}
