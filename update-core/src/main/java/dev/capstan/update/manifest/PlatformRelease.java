package dev.capstan.update.manifest;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.catalog.Catalog;
import dev.capstan.update.version.ImageRef;
import dev.capstan.update.version.Semver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A platform release manifest. Read one with {@link PlatformReleases#parse}; the JSON field names
 * are the record's component names.
 *
 * @param apiVersion the manifest schema, as the host's catalog names it
 * @param kind always {@code PlatformRelease}
 * @param version the release version, semver with an optional leading {@code v}
 * @param registry the registry ({@code host[:port]}) relative repositories resolve against; empty
 *     to use the registry of the image currently running
 * @param crdChange whether the release changes CustomResourceDefinitions
 * @param crds the CRD bundle (multi-document YAML); empty when not embedded
 * @param components the component images, at least one
 */
public record PlatformRelease(
    String apiVersion,
    String kind,
    String version,
    String registry,
    boolean crdChange,
    String crds,
    List<ManifestComponent> components) {

  /** The manifest kind. */
  public static final String KIND = "PlatformRelease";

  private static final Pattern API_VERSION = Pattern.compile(Catalog.API_VERSION_RULE);

  /** Validates the manifest; all problems are reported together. */
  public PlatformRelease {
    requireNonNull(apiVersion, "apiVersion");
    requireNonNull(kind, "kind");
    requireNonNull(version, "version");
    requireNonNull(registry, "registry");
    requireNonNull(crds, "crds");
    components = List.copyOf(components);
    List<String> problems =
        problems(
            apiVersion,
            kind,
            version,
            registry,
            crds,
            components.stream().map(ManifestComponent::name).toList(),
            null);
    if (!problems.isEmpty()) {
      throw new InvalidManifestException("for version " + version, problems);
    }
  }

  /**
   * Creates a manifest without registry or CRDs.
   *
   * @param apiVersion the schema, as the catalog names it
   * @param version the release version
   * @param components the component images
   * @return the manifest
   */
  public static PlatformRelease of(
      String apiVersion, String version, List<ManifestComponent> components) {
    return new PlatformRelease(apiVersion, KIND, version, "", false, "", components);
  }

  /**
   * Returns one component entry.
   *
   * @param name the component name
   * @return the entry, or empty when the release does not name the component
   */
  public Optional<ManifestComponent> component(String name) {
    return components.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /**
   * Returns a copy with a registry.
   *
   * @param newRegistry {@code host[:port]}, or empty
   * @return the copy
   */
  public PlatformRelease withRegistry(String newRegistry) {
    return new PlatformRelease(apiVersion, kind, version, newRegistry, crdChange, crds, components);
  }

  /**
   * Returns a copy that changes CRDs, with a bundle (for example one a caller read from a file).
   *
   * @param bundle the multi-document CRD YAML
   * @return the copy, with {@code crdChange} set
   * @throws InvalidManifestException when the bundle holds anything but CRDs
   */
  public PlatformRelease withCrds(String bundle) {
    return new PlatformRelease(apiVersion, kind, version, registry, true, bundle, components);
  }

  /**
   * Parses the embedded CRD bundle.
   *
   * @return the bundle; empty when {@code crds} is empty
   */
  public CrdBundle crdBundle() {
    return crds.isBlank() ? new CrdBundle(List.of()) : CrdBundle.parse(crds);
  }

  static List<String> problems(
      String apiVersion,
      String kind,
      String version,
      String registry,
      String crds,
      List<String> names,
      @Nullable Catalog catalog) {
    List<String> out = headerProblems(apiVersion, kind, version, registry, crds, catalog);
    if (names.isEmpty()) {
      out.add("components must not be empty");
    }
    out.addAll(nameProblems(names, catalog));
    return out;
  }

  static List<String> headerProblems(
      String apiVersion,
      String kind,
      String version,
      String registry,
      String crds,
      @Nullable Catalog catalog) {
    List<String> out = new ArrayList<>();
    if (apiVersion.isEmpty()) {
      out.add("apiVersion is required");
    } else if (catalog != null && !apiVersion.equals(catalog.manifestApiVersion())) {
      out.add(
          "apiVersion must be '"
              + catalog.manifestApiVersion()
              + "': "
              + Escapes.quote(apiVersion));
    } else if (!API_VERSION.matcher(apiVersion).matches()) {
      out.add(
          "apiVersion must match " + Catalog.API_VERSION_RULE + ": " + Escapes.quote(apiVersion));
    }
    if (!KIND.equals(kind)) {
      out.add("kind must be '" + KIND + "': " + Escapes.quote(kind));
    }
    if (version.isEmpty()) {
      out.add("version is required");
    } else if (!Semver.isValid(version)) {
      out.add("version must be " + Semver.RULE + ": " + Escapes.quote(version));
    }
    if (!registry.isEmpty() && !ImageRef.isValidRegistry(registry)) {
      out.add("registry must match " + ImageRef.REGISTRY_RULE + ": " + Escapes.quote(registry));
    }
    if (!crds.isBlank()) {
      CrdBundle.read(crds, "crds", out);
    }
    return out;
  }

  static List<String> nameProblems(List<String> names, @Nullable Catalog catalog) {
    List<String> out = new ArrayList<>();
    Set<String> known = catalog == null ? Set.of() : Set.copyOf(catalog.names());
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (name.isEmpty()) {
        continue;
      }
      Integer first = seen.putIfAbsent(name, i);
      if (first != null) {
        out.add(
            "components["
                + i
                + "].name duplicates components["
                + first
                + "]: "
                + Escapes.quote(name));
      } else if (catalog != null && !known.contains(name)) {
        out.add(
            "components["
                + i
                + "].name is not a component of the catalog (known: "
                + String.join(", ", catalog.names())
                + "): "
                + Escapes.quote(name));
      }
    }
    return out;
  }
}
