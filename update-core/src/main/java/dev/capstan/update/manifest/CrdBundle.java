package dev.capstan.update.manifest;

import dev.capstan.common.ApiJson;
import dev.capstan.common.Escapes;
import dev.capstan.common.Trees;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.internal.DocumentSyntaxException;
import dev.capstan.update.internal.Documents;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A release's CRD bundle: a multi-document YAML stream holding CustomResourceDefinitions only. Any
 * other kind is an error, as are documents without a name or spec, duplicate names, and a number
 * the API server would not store as written ({@link ApiJson#numberProblems}: an integer beyond 64
 * bits, a decimal beyond a 64-bit float's range).
 *
 * @param crds the definitions, in bundle order
 */
public record CrdBundle(List<CrdDocument> crds) {

  /** The only kind a bundle may hold. */
  public static final String KIND = "CustomResourceDefinition";

  /** Copies the list. */
  public CrdBundle {
    crds = List.copyOf(crds);
  }

  /**
   * Parses and filters a bundle.
   *
   * @param yaml the multi-document YAML
   * @return the bundle
   * @throws InvalidManifestException listing every problem (paths {@code crds[<document>]...})
   */
  public static CrdBundle parse(String yaml) {
    List<String> problems = new ArrayList<>();
    CrdBundle bundle = read(yaml, "crds", problems);
    if (!problems.isEmpty()) {
      throw new InvalidManifestException("CRD bundle", problems);
    }
    return bundle;
  }

  /**
   * Concatenates CRD files into one bundle, the way a release build does: files ending in {@code
   * .yaml} or {@code .yml}, sorted by name, separated by {@code ---} lines; other files are
   * ignored.
   *
   * @param filesByName file contents keyed by file name
   * @return the bundle text
   */
  public static String concat(Map<String, String> filesByName) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(filesByName).entrySet()) {
      if (!e.getKey().endsWith(".yaml") && !e.getKey().endsWith(".yml")) {
        continue;
      }
      if (sb.length() > 0) {
        sb.append("---\n");
      }
      sb.append(e.getValue());
      if (!e.getValue().endsWith("\n")) {
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * Returns the names of the definitions.
   *
   * @return {@code metadata.name} values, in bundle order
   */
  public List<String> names() {
    return crds.stream().map(CrdDocument::name).toList();
  }

  static CrdBundle read(String yaml, String path, List<String> problems) {
    List<@Nullable Object> docs;
    try {
      docs = Documents.readAll(yaml, PlatformReleases.MAX_BYTES);
    } catch (DocumentSyntaxException e) {
      problems.add(path + " " + e.getMessage());
      return new CrdBundle(List.of());
    }
    List<CrdDocument> out = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < docs.size(); i++) {
      Object doc = docs.get(i);
      if (doc == null) {
        continue;
      }
      String docPath = path + "[" + i + "]";
      if (!(doc instanceof Map<?, ?> map)) {
        problems.add(docPath + " must be a mapping: " + Trees.show(doc));
        continue;
      }
      int before = problems.size();
      Object kind = map.get("kind");
      if (!KIND.equals(kind)) {
        problems.add(docPath + ".kind must be " + KIND + ": " + Trees.show(kind));
        continue;
      }
      Object apiVersion = map.get("apiVersion");
      if (!(apiVersion instanceof String v && v.startsWith("apiextensions.k8s.io/"))) {
        problems.add(
            docPath
                + ".apiVersion must be apiextensions.k8s.io/<version>: "
                + Trees.show(apiVersion));
      }
      Object name = map.get("metadata") instanceof Map<?, ?> meta ? meta.get("name") : null;
      if (!(name instanceof String n) || n.isEmpty()) {
        problems.add(docPath + ".metadata.name is required");
        name = "";
      }
      Object spec = map.get("spec");
      if (!(spec instanceof Map<?, ?>)) {
        problems.add(docPath + ".spec must be a mapping");
      }
      Integer first = name.equals("") ? null : seen.putIfAbsent((String) name, i);
      if (first != null) {
        problems.add(
            docPath
                + ".metadata.name duplicates "
                + path
                + "["
                + first
                + "]: "
                + Escapes.quote(name));
      }
      // the API server would store such a number changed (0, a wrapped value) with HTTP 201
      problems.addAll(ApiJson.numberProblems(docPath + ".", map));
      if (problems.size() == before && spec instanceof Map<?, ?> specTree) {
        @SuppressWarnings("unchecked")
        Map<String, @Nullable Object> specMap = (Map<String, @Nullable Object>) specTree;
        @SuppressWarnings("unchecked")
        Map<String, @Nullable Object> docMap = (Map<String, @Nullable Object>) map;
        out.add(new CrdDocument((String) name, specMap, docMap));
      }
    }
    if (out.isEmpty() && problems.isEmpty()) {
      problems.add(path + " holds no " + KIND);
    }
    return new CrdBundle(out);
  }
}
