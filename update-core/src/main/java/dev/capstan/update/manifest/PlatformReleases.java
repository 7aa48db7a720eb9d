package dev.capstan.update.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.capstan.common.Escapes;
import dev.capstan.common.JsonMappers;
import dev.capstan.common.StrictMap;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.catalog.CatalogComponent;
import dev.capstan.update.internal.DocumentSyntaxException;
import dev.capstan.update.internal.Documents;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads, checks and generates release manifests. */
public final class PlatformReleases {

  /** The largest manifest read: 4 MiB. */
  public static final int MAX_BYTES = 4 * 1024 * 1024;

  /** The asset name a release publishes its manifest under. */
  public static final String MANIFEST_ASSET = "platform-manifest.json";

  /** The asset name a release publishes its CRD bundle under. */
  public static final String CRDS_ASSET = "platform-crds.yaml";

  private static final Set<String> ROOT =
      StrictMap.fields(
          "apiVersion", "kind", "version", "registry", "crdChange", "crds", "components");
  private static final Set<String> COMPONENT =
      StrictMap.fields("name", "repository", "tag", "digest");
  private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");
  private static final ObjectMapper JSON = JsonMappers.trees();

  private PlatformReleases() {}

  /**
   * Reads a manifest from YAML or JSON (JSON when the document starts with <code>{</code>),
   * strictly, against a catalog. Every problem is collected before anything is reported.
   *
   * @param bytes the document, at most {@link #MAX_BYTES}
   * @param source where it came from, for messages, for example {@code platform-manifest.yaml}
   * @param catalog the host's catalog (accepted apiVersion and component names)
   * @return the manifest
   * @throws InvalidManifestException listing every problem with its path
   */
  public static PlatformRelease parse(byte[] bytes, String source, Catalog catalog) {
    Object tree;
    try {
      tree = Documents.readOne(bytes, MAX_BYTES);
    } catch (DocumentSyntaxException e) {
      throw new InvalidManifestException(source, List.of(e.getMessage()));
    }
    List<String> problems = new ArrayList<>();
    StrictMap root = StrictMap.open(tree, "", "the manifest", ROOT, problems);
    if (root == null) {
      throw new InvalidManifestException(source, problems);
    }
    String apiVersion = root.string("apiVersion");
    String kind = root.string("kind");
    String version = root.string("version");
    String registry = root.string("registry");
    boolean crdChange = root.bool("crdChange");
    String crds = root.string("crds");
    StrictMap.addPerField(
        problems,
        PlatformRelease.headerProblems(apiVersion, kind, version, registry, crds, catalog));
    if (root.size("components") == 0) {
      problems.add("components must not be empty");
    }
    List<ManifestComponent> components = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (StrictMap.Element e : root.objects("components", COMPONENT)) {
      StrictMap m = e.map();
      String name = m.string("name");
      String repository = m.string("repository");
      String tag = m.string("tag");
      String digest = m.string("digest");
      names.add(name);
      List<String> own =
          ManifestComponent.problems(
              "components[" + e.index() + "].", name, repository, tag, digest);
      StrictMap.addPerField(problems, own);
      if (own.isEmpty()) {
        components.add(new ManifestComponent(name, repository, tag, digest));
      }
    }
    StrictMap.addPerField(problems, PlatformRelease.nameProblems(names, catalog));
    if (!problems.isEmpty()) {
      throw new InvalidManifestException(source, problems);
    }
    return new PlatformRelease(apiVersion, kind, version, registry, crdChange, crds, components);
  }

  /**
   * Checks a manifest built in Java (or parsed against another catalog) against a catalog: its
   * apiVersion and that it names only catalog components.
   *
   * @param release the manifest
   * @param source where it came from, for messages
   * @param catalog the host's catalog
   * @throws InvalidManifestException listing every problem
   */
  public static void check(PlatformRelease release, String source, Catalog catalog) {
    List<String> problems =
        PlatformRelease.problems(
            release.apiVersion(),
            release.kind(),
            release.version(),
            release.registry(),
            "",
            release.components().stream().map(ManifestComponent::name).toList(),
            catalog);
    if (!problems.isEmpty()) {
      throw new InvalidManifestException(source, problems);
    }
  }

  /**
   * Generates the manifest a release build publishes: every built component that has a default
   * repository, tagged with the version.
   *
   * @param catalog the host's catalog
   * @param version the release version
   * @param crdChange whether the release changes CRDs
   * @param crds the CRD bundle, or empty
   * @return the manifest
   */
  public static PlatformRelease generate(
      Catalog catalog, String version, boolean crdChange, String crds) {
    return generated(catalog, version, version, crdChange, crds);
  }

  /**
   * Generates the manifest of a build from one source commit: like {@link #generate} but every tag
   * is {@code <version>-g<commit>}, which marks the images as needing a build from that commit.
   *
   * @param catalog the host's catalog
   * @param version the release version
   * @param commit the 40-hex source commit
   * @param crdChange whether the release changes CRDs
   * @param crds the CRD bundle, or empty
   * @return the manifest
   */
  public static PlatformRelease generateForCommit(
      Catalog catalog, String version, String commit, boolean crdChange, String crds) {
    if (!COMMIT.matcher(commit).matches()) {
      throw new IllegalArgumentException(
          "commit must be 40 lowercase hex digits: " + Escapes.quote(commit));
    }
    return generated(catalog, version, version + "-g" + commit, crdChange, crds);
  }

  private static PlatformRelease generated(
      Catalog catalog, String version, String tag, boolean crdChange, String crds) {
    List<ManifestComponent> components = new ArrayList<>();
    for (CatalogComponent c : catalog.components()) {
      String repository = c.defaultRepository();
      if (c.built() && repository != null) {
        components.add(ManifestComponent.of(c.name(), repository, tag));
      }
    }
    return new PlatformRelease(
        catalog.manifestApiVersion(),
        PlatformRelease.KIND,
        version,
        "",
        crdChange,
        crds,
        components);
  }

  /**
   * Renders a manifest as indented JSON; empty optional fields are left out.
   *
   * @param release the manifest
   * @return the JSON document
   */
  public static String toJson(PlatformRelease release) {
    ObjectNode root = JSON.createObjectNode();
    root.put("apiVersion", release.apiVersion());
    root.put("kind", release.kind());
    root.put("version", release.version());
    if (!release.registry().isEmpty()) {
      root.put("registry", release.registry());
    }
    if (release.crdChange()) {
      root.put("crdChange", true);
    }
    if (!release.crds().isEmpty()) {
      root.put("crds", release.crds());
    }
    ArrayNode components = root.putArray("components");
    for (ManifestComponent c : release.components()) {
      ObjectNode n = components.addObject();
      n.put("name", c.name());
      n.put("repository", c.repository());
      n.put("tag", c.tag());
      if (!c.digest().isEmpty()) {
        n.put("digest", c.digest());
      }
    }
    try {
      return JsonMappers.pretty().writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
