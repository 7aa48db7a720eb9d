package dev.capstan.update.manifest;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.version.ImageRef;
import java.util.ArrayList;
import java.util.List;

/**
 * One component entry of a release manifest.
 *
 * @param name the catalog component name
 * @param repository the image repository, without tag or digest; relative (no registry) or absolute
 * @param tag the image tag
 * @param digest the image digest {@code sha256:<64 hex>}; empty when the release does not pin one
 */
public record ManifestComponent(String name, String repository, String tag, String digest) {

  /** Validates every field; all problems are reported together. */
  public ManifestComponent {
    requireNonNull(name, "name");
    requireNonNull(repository, "repository");
    requireNonNull(tag, "tag");
    requireNonNull(digest, "digest");
    List<String> problems = problems("", name, repository, tag, digest);
    if (!problems.isEmpty()) {
      throw new InvalidManifestException("component " + Escapes.quote(name), problems);
    }
  }

  /**
   * Creates an entry without a digest.
   *
   * @param name the component name
   * @param repository the repository
   * @param tag the tag
   * @return the entry
   */
  public static ManifestComponent of(String name, String repository, String tag) {
    return new ManifestComponent(name, repository, tag, "");
  }

  /**
   * Returns a copy pinned to a digest.
   *
   * @param newDigest {@code sha256:<64 hex>}
   * @return the copy
   */
  public ManifestComponent withDigest(String newDigest) {
    return new ManifestComponent(name, repository, tag, newDigest);
  }

  /**
   * Resolves the image this entry targets. A relative repository takes the manifest's registry, or,
   * when the manifest names none, the registry of the image currently running (so a platform that
   * runs from an in-cluster registry keeps doing so).
   *
   * @param manifestRegistry the manifest's {@code registry}, possibly empty
   * @param currentRegistry the registry of the running image, possibly empty
   * @return {@code registry/repository:tag[@digest]}
   */
  public ImageRef targetRef(String manifestRegistry, String currentRegistry) {
    ImageRef repo = ImageRef.parse(repository);
    String registry = repo.registry();
    if (registry.isEmpty()) {
      registry = manifestRegistry.isEmpty() ? currentRegistry : manifestRegistry;
    }
    return new ImageRef(registry, repo.path(), tag, digest);
  }

  static List<String> problems(
      String path, String name, String repository, String tag, String digest) {
    List<String> out = new ArrayList<>();
    if (name.isEmpty()) {
      out.add(path + "name is required");
    }
    if (repository.isEmpty()) {
      out.add(path + "repository is required");
    } else {
      ImageRef.repositoryProblem(repository)
          .ifPresent(why -> out.add(path + "repository " + why + ": " + Escapes.quote(repository)));
    }
    if (tag.isEmpty()) {
      out.add(path + "tag is required");
    } else if (!ImageRef.isValidTag(tag)) {
      out.add(path + "tag must match " + ImageRef.TAG_RULE + ": " + Escapes.quote(tag));
    }
    if (!digest.isEmpty() && !ImageRef.isSha256Digest(digest)) {
      out.add(path + "digest must match " + ImageRef.SHA256_RULE + ": " + Escapes.quote(digest));
    }
    return out;
  }
}
