package dev.capstan.update.catalog;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.InvalidCatalogException;
import dev.capstan.update.cluster.Workload;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The host platform's component catalog. Build one with {@link #builder()} or read one with {@link
 * #load(byte[], String)}.
 *
 * @param platformName how messages name the platform, for example {@code MCP Runtime}
 * @param manifestApiVersion the {@code apiVersion} release manifests must carry
 * @param metadata the label and annotation keys written on patched Deployments
 * @param installedCheck how to tell the platform is installed; null to skip the check
 * @param releaseBaseUrl where {@code <base>/<version>/platform-manifest.json} (and {@code
 *     platform-crds.yaml}) are published, an {@code https://} URL; null when releases are only read
 *     from files
 * @param components the components, in rollout order
 * @param preserved what an update never modifies, shown in every plan
 */
public record Catalog(
    String platformName,
    String manifestApiVersion,
    MetadataKeys metadata,
    @Nullable InstalledCheck installedCheck,
    @Nullable String releaseBaseUrl,
    List<CatalogComponent> components,
    List<String> preserved) {

  /** The manifest apiVersion used when the host names none. */
  public static final String DEFAULT_MANIFEST_API_VERSION = "capstan.dev/v1alpha1";

  /** The largest catalog document {@link #load} reads. */
  public static final int MAX_BYTES = 1024 * 1024;

  /** The rule for manifest apiVersions: {@code group/version}. */
  public static final String API_VERSION_RULE = "[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]+";

  private static final Pattern API_VERSION = Pattern.compile(API_VERSION_RULE);

  /** Validates the catalog; all problems are reported together. */
  public Catalog {
    requireNonNull(platformName, "platformName");
    requireNonNull(manifestApiVersion, "manifestApiVersion");
    requireNonNull(metadata, "metadata");
    components = List.copyOf(components);
    preserved = List.copyOf(preserved);
    List<String> problems =
        problems(
            platformName,
            manifestApiVersion,
            releaseBaseUrl,
            components.stream().map(CatalogComponent::name).toList());
    if (!problems.isEmpty()) {
      throw new InvalidCatalogException("for " + platformName, problems);
    }
  }

  static List<String> problems(
      String platformName,
      String manifestApiVersion,
      @Nullable String releaseBaseUrl,
      List<String> componentNames) {
    List<String> out = new ArrayList<>();
    if (platformName.isBlank()) {
      out.add("platform must not be blank");
    }
    if (!API_VERSION.matcher(manifestApiVersion).matches()) {
      out.add(
          "manifestApiVersion must match "
              + API_VERSION_RULE
              + ": "
              + Escapes.quote(manifestApiVersion));
    }
    if (releaseBaseUrl != null
        && (!releaseBaseUrl.startsWith("https://") || releaseBaseUrl.length() <= 8)) {
      out.add("releaseBaseUrl must be an https:// URL: " + Escapes.quote(releaseBaseUrl));
    }
    if (componentNames.isEmpty()) {
      out.add("components must not be empty");
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < componentNames.size(); i++) {
      Integer first = seen.putIfAbsent(componentNames.get(i), i);
      if (first != null) {
        out.add(
            "components["
                + i
                + "].name duplicates components["
                + first
                + "]: "
                + Escapes.quote(componentNames.get(i)));
      }
    }
    return out;
  }

  /**
   * Starts a catalog.
   *
   * @return an empty builder with Capstan's defaults
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads a catalog from YAML or JSON, strictly: unknown fields, wrong types and broken rules are
   * all reported together, each with its path. The schema is documented in {@code
   * update-core/README.md}.
   *
   * @param bytes the document, at most {@link #MAX_BYTES}
   * @param source where it came from, for messages
   * @return the catalog
   * @throws InvalidCatalogException listing every problem
   */
  public static Catalog load(byte[] bytes, String source) {
    return CatalogReader.read(bytes, source);
  }

  /**
   * Returns where a release's manifest is published.
   *
   * @param version the release version, for example {@code v0.5.0}
   * @return {@code <releaseBaseUrl>/<version>/platform-manifest.json}, or empty without a base URL
   */
  public Optional<String> manifestUrl(String version) {
    return asset(version, "platform-manifest.json");
  }

  /**
   * Returns where a release's CRD bundle is published.
   *
   * @param version the release version
   * @return {@code <releaseBaseUrl>/<version>/platform-crds.yaml}, or empty without a base URL
   */
  public Optional<String> crdsUrl(String version) {
    return asset(version, "platform-crds.yaml");
  }

  private Optional<String> asset(String version, String name) {
    String base = releaseBaseUrl;
    if (base == null) {
      return Optional.empty();
    }
    return Optional.of((base.endsWith("/") ? base : base + "/") + version + "/" + name);
  }

  /**
   * Returns one component.
   *
   * @param name the component name
   * @return the component, or empty when the catalog has none of that name
   */
  public Optional<CatalogComponent> component(String name) {
    return components.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /**
   * Returns the component names, in rollout order.
   *
   * @return the names
   */
  public List<String> names() {
    return components.stream().map(CatalogComponent::name).toList();
  }

  /**
   * Returns the opt-in groups.
   *
   * @return the group names, sorted
   */
  public SortedSet<String> groups() {
    TreeSet<String> out = new TreeSet<>();
    for (CatalogComponent c : components) {
      String group = c.optInGroup();
      if (group != null) {
        out.add(group);
      }
    }
    return Collections.unmodifiableSortedSet(out);
  }

  /**
   * Returns every Deployment the catalog refers to, the installed-check one first.
   *
   * @return the workloads, without duplicates
   */
  public List<Workload> workloads() {
    LinkedHashSet<Workload> out = new LinkedHashSet<>();
    if (installedCheck != null) {
      out.add(installedCheck.workload());
    }
    for (CatalogComponent c : components) {
      Workload w = c.workload();
      if (w != null) {
        out.add(w);
      }
    }
    return List.copyOf(out);
  }

  /** Assembles a {@link Catalog}. Not thread-safe; {@link #build()} may be called repeatedly. */
  public static final class Builder {
    private String platformName = "the platform";
    private String manifestApiVersion = DEFAULT_MANIFEST_API_VERSION;
    private MetadataKeys metadata = MetadataKeys.defaults();
    private @Nullable InstalledCheck installedCheck;
    private @Nullable String releaseBaseUrl;
    private final List<CatalogComponent> components = new ArrayList<>();
    private final List<String> preserved = new ArrayList<>();

    private Builder() {}

    /**
     * Names the platform in messages.
     *
     * @param name for example {@code MCP Runtime}
     * @return this builder
     */
    public Builder platformName(String name) {
      this.platformName = requireNonNull(name, "name");
      return this;
    }

    /**
     * Sets the apiVersion release manifests must carry.
     *
     * @param apiVersion for example {@code mcpruntime.org/v1alpha1}
     * @return this builder
     */
    public Builder manifestApiVersion(String apiVersion) {
      this.manifestApiVersion = requireNonNull(apiVersion, "apiVersion");
      return this;
    }

    /**
     * Sets the label and annotation keys written on patched Deployments.
     *
     * @param domain the key prefix, for example {@code mcpruntime.org}
     * @param partOf the {@code app.kubernetes.io/part-of} value, for example {@code mcp-runtime}
     * @return this builder
     */
    public Builder metadataKeys(String domain, String partOf) {
      this.metadata = new MetadataKeys(domain, partOf);
      return this;
    }

    /**
     * Sets the installed-check.
     *
     * @param namespace the namespace of the Deployment every install has
     * @param deployment its name
     * @param hint what to tell the operator when it is missing
     * @return this builder
     */
    public Builder installedCheck(String namespace, String deployment, String hint) {
      this.installedCheck = new InstalledCheck(Workload.of(namespace, deployment), hint);
      return this;
    }

    /**
     * Sets where releases are published.
     *
     * @param url an {@code https://} base URL; {@code <url>/<version>/platform-manifest.json}
     * @return this builder
     */
    public Builder releaseBaseUrl(String url) {
      this.releaseBaseUrl = requireNonNull(url, "url");
      return this;
    }

    /**
     * Appends a component; the order of calls is the rollout order.
     *
     * @param component the component
     * @return this builder
     */
    public Builder component(CatalogComponent component) {
      components.add(requireNonNull(component, "component"));
      return this;
    }

    /**
     * Appends lines to the list of what an update never modifies.
     *
     * @param lines for example {@code Secrets (credentials, registry pull secrets, TLS material)}
     * @return this builder
     */
    public Builder preserved(String... lines) {
      for (String line : lines) {
        preserved.add(requireNonNull(line, "line"));
      }
      return this;
    }

    /**
     * Builds the catalog.
     *
     * @return the catalog
     * @throws InvalidCatalogException listing every problem
     */
    public Catalog build() {
      return new Catalog(
          platformName,
          manifestApiVersion,
          metadata,
          installedCheck,
          releaseBaseUrl,
          components,
          preserved);
    }
  }
}
