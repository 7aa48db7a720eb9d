package dev.capstan.release.file;

import dev.capstan.common.Escapes;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import dev.capstan.common.StrictMap;
import dev.capstan.common.StrictMap.Wording;
import dev.capstan.release.model.DriftIgnore;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.ResourceSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Reads one release file ({@code capstan.dev/v1 Release}) into a {@link ReleaseFile}: binds its
 * document ({@link ReleaseDocument}), then each element of its {@code spec} lists (services,
 * secrets, configMaps, volumes, drift ignore rules, references), then the manifests of {@code
 * spec.manifests}, inline or by path, and checks the whole release. Every problem is collected,
 * each with its path, and thrown together.
 */
final class ReleaseFileReader {
  private ReleaseFileReader() {}

  /** {@link ReleaseFiles#parse(byte[], String, Path, Overrides, Function)}. */
  static ReleaseFile parse(
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
  static ReleaseFile parse(
      Object tree,
      byte[] bytes,
      String source,
      @Nullable Path baseDirectory,
      Overrides overrides,
      Function<String, @Nullable String> env,
      List<String> problems) {
    ReleaseDocument doc = ReleaseDocument.read(tree, problems);
    if (doc == null) {
      throw new InvalidReleaseFileException(source, problems);
    }
    if (!ReleaseFiles.API_VERSION.equals(doc.apiVersion())) {
      problems.add(
          "apiVersion must be "
              + ReleaseFiles.API_VERSION
              + ": "
              + Escapes.quote(doc.apiVersion()));
    }
    if (!ReleaseFiles.KIND.equals(doc.kind())) {
      problems.add("kind must be " + ReleaseFiles.KIND + ": " + Escapes.quote(doc.kind()));
    }
    String name = overrides.name() != null ? overrides.name() : doc.name();
    String namespace = overrides.namespace() != null ? overrides.namespace() : doc.namespace();
    if (name == null || name.isBlank()) {
      problems.add("metadata.name must be set (or passed as --release): " + Escapes.quote(name));
      name = "";
    }
    if (namespace == null || namespace.isBlank()) {
      namespace = overrides.fallbackNamespace();
    }
    List<DriftIgnore> rules = new ArrayList<>();
    each(
        doc.driftIgnore(),
        "spec.options.driftIgnore",
        DriftIgnoreDoc.FIELDS,
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
            .withVerifyOnServer(doc.verifyOnServer())
            .withDeleteGate(doc.deleteGate())
            .withHealthRules(
                HealthRuleDocs.read(doc.healthRules(), "spec.options.healthRules", problems));

    List<ResourceSpec> specs = new ArrayList<>();
    String ns = namespace;
    each(
        doc.services(),
        "spec.services",
        ServiceDoc.FIELDS,
        ServiceDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    each(
        doc.secrets(),
        "spec.secrets",
        SecretDoc.FIELDS,
        SecretDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns, at, env, problems)));
    each(
        doc.configMaps(),
        "spec.configMaps",
        ConfigMapDoc.FIELDS,
        ConfigMapDoc::read,
        problems,
        (d, at) -> specs.add(d.toSpec(ns)));
    each(
        doc.volumes(),
        "spec.volumes",
        VolumeDoc.FIELDS,
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
              "must be a key such as Secret/shop/external or Namespace//shop: "
                  + Escapes.quote(ref));
        }
        references.addAll(reference(key));
      } catch (IllegalArgumentException e) {
        problems.add("spec.references[" + i + "]: " + e.getMessage());
      }
    }

    List<Manifest> manifests =
        doc.manifests() ? specManifests(bytes, baseDirectory, ns, specs, problems) : List.of();

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
   * The manifests of {@code spec.manifests}, read from the file's text (so each keeps its own
   * document's shape): inline objects, and files named by a path relative to {@code baseDirectory}.
   */
  private static List<Manifest> specManifests(
      byte[] bytes,
      @Nullable Path baseDirectory,
      String namespace,
      List<ResourceSpec> typed,
      List<String> problems) {
    List<ManifestYaml.Document> docs;
    try {
      docs =
          ManifestYaml.loadAll(StrictDocuments.decode(bytes), ReleaseFiles.LIMITS).stream()
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
      docs = StrictDocuments.readYaml(bytes, ReleaseFiles.LIMITS);
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
   * Binds each element of a list of {@code spec} and hands it on. An element is read in full and
   * every problem it has is reported (the element then left out); a null element is skipped.
   */
  private static <T> void each(
      List<@Nullable Object> elements,
      String field,
      Set<String> allowed,
      Function<StrictMap, T> read,
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
        problems.addAll(shape);
        continue;
      }
      try {
        handler.accept(element, at);
      } catch (IllegalArgumentException | NullPointerException e) {
        problems.add(at + ": " + e.getMessage());
      }
    }
  }
}
