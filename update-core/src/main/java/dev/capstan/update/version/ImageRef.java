package dev.capstan.update.version;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An image reference {@code [registry[:port]/]path[:tag][@digest]}, split into its parts. The first
 * path component is the registry when it contains a dot or a colon or is {@code localhost} (the
 * Docker rule), so {@code mcp-ui:v1} has no registry and {@code reg:5000/mcp-ui:v1} has registry
 * {@code reg:5000}. Absent parts are empty strings.
 *
 * @param registry the registry host with an optional port, empty when the reference is relative
 * @param path the repository path, for example {@code org/app}
 * @param tag the tag, empty when absent
 * @param digest the content digest, for example {@code sha256:...}, empty when absent
 */
public record ImageRef(String registry, String path, String tag, String digest) {

  /** The tag grammar. */
  public static final String TAG_RULE = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}";

  /** The registry grammar: a host name with an optional port. */
  public static final String REGISTRY_RULE =
      "[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?";

  /** The grammar of one repository path component. */
  public static final String PATH_COMPONENT_RULE = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";

  /** The grammar of a sha256 digest, the only kind release manifests accept. */
  public static final String SHA256_RULE = "sha256:[a-f0-9]{64}";

  /** The grammar of a content digest in general (OCI). */
  public static final String DIGEST_RULE = "[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}";

  private static final Pattern TAG = Pattern.compile(TAG_RULE);
  private static final Pattern REGISTRY = Pattern.compile(REGISTRY_RULE);
  private static final Pattern PATH_COMPONENT = Pattern.compile(PATH_COMPONENT_RULE);
  private static final Pattern DIGEST = Pattern.compile(DIGEST_RULE);
  private static final Pattern RELEASE_COMMIT = Pattern.compile("^(.*)-g([0-9a-f]{40})$");
  private static final int MAX_NAME_LENGTH = 255;

  /** Validates every part against its grammar. */
  public ImageRef {
    requireNonNull(registry, "registry");
    requireNonNull(path, "path");
    requireNonNull(tag, "tag");
    requireNonNull(digest, "digest");
    if (!registry.isEmpty() && !REGISTRY.matcher(registry).matches()) {
      throw new IllegalArgumentException(
          "image registry must match " + REGISTRY_RULE + ": " + Escapes.quote(registry));
    }
    if (path.isEmpty()) {
      throw new IllegalArgumentException("image repository path must not be empty");
    }
    for (String component : path.split("/", -1)) {
      if (!PATH_COMPONENT.matcher(component).matches()) {
        throw new IllegalArgumentException(
            "image repository path component must match "
                + PATH_COMPONENT_RULE
                + ": '"
                + component
                + "' in "
                + Escapes.quote(path));
      }
    }
    if (registry.length() + path.length() + 1 > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "image name must be at most " + MAX_NAME_LENGTH + " characters: " + Escapes.quote(path));
    }
    if (!tag.isEmpty() && !TAG.matcher(tag).matches()) {
      throw new IllegalArgumentException(
          "image tag must match " + TAG_RULE + ": " + Escapes.quote(tag));
    }
    if (!digest.isEmpty() && !DIGEST.matcher(digest).matches()) {
      throw new IllegalArgumentException(
          "image digest must match " + DIGEST_RULE + ": " + Escapes.quote(digest));
    }
  }

  /**
   * Parses a reference.
   *
   * @param reference for example {@code reg:5000/org/app:v1.2.0@sha256:...}
   * @return the parts
   * @throws IllegalArgumentException naming the broken rule and the value
   */
  public static ImageRef parse(String reference) {
    if (reference.isEmpty()) {
      throw new IllegalArgumentException("image reference must not be empty");
    }
    String rest = reference;
    String digest = "";
    int at = rest.indexOf('@');
    if (at >= 0) {
      digest = rest.substring(at + 1);
      rest = rest.substring(0, at);
      if (digest.isEmpty()) {
        throw invalid(reference, "a digest must follow '@'");
      }
    }
    String tag = "";
    int colon = rest.lastIndexOf(':');
    if (colon > rest.lastIndexOf('/')) {
      tag = rest.substring(colon + 1);
      rest = rest.substring(0, colon);
      if (tag.isEmpty()) {
        throw invalid(reference, "a tag must follow ':'");
      }
    }
    String registry = "";
    int slash = rest.indexOf('/');
    if (slash > 0) {
      String first = rest.substring(0, slash);
      if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
        registry = first;
        rest = rest.substring(slash + 1);
      }
    }
    try {
      return new ImageRef(registry, rest, tag, digest);
    } catch (IllegalArgumentException e) {
      throw invalid(reference, String.valueOf(e.getMessage()));
    }
  }

  /**
   * Parses a reference, or returns empty.
   *
   * @param reference the candidate
   * @return the parts, or empty when {@link #parse} would reject it
   */
  public static Optional<ImageRef> tryParse(String reference) {
    try {
      return Optional.of(parse(reference));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static IllegalArgumentException invalid(String reference, String why) {
    return new IllegalArgumentException(
        "invalid image reference '"
            + reference
            + "' ([registry[:port]/]path[:tag][@digest]): "
            + why);
  }

  /**
   * Checks that a string is an image repository: a reference without tag or digest.
   *
   * @param repository the candidate, for example {@code mcp-ui} or {@code ghcr.io/org/app}
   * @return the broken rule, or empty when the repository is valid
   */
  public static Optional<String> repositoryProblem(String repository) {
    Optional<ImageRef> ref = tryParse(repository);
    if (ref.isEmpty()) {
      return Optional.of("must be an image repository [registry[:port]/]path");
    }
    if (!ref.get().tag().isEmpty() || !ref.get().digest().isEmpty()) {
      return Optional.of("must be an image repository without tag or digest");
    }
    return Optional.empty();
  }

  /**
   * Tells whether a tag matches {@link #TAG_RULE}.
   *
   * @param tag the candidate
   * @return true when valid
   */
  public static boolean isValidTag(String tag) {
    return TAG.matcher(tag).matches();
  }

  /**
   * Tells whether a registry matches {@link #REGISTRY_RULE}.
   *
   * @param registry the candidate
   * @return true when valid
   */
  public static boolean isValidRegistry(String registry) {
    return REGISTRY.matcher(registry).matches();
  }

  /**
   * Tells whether a digest matches {@link #SHA256_RULE}.
   *
   * @param digest the candidate
   * @return true when valid
   */
  public static boolean isSha256Digest(String digest) {
    if (digest.length() != 71 || !digest.startsWith("sha256:")) {
      return false;
    }
    for (int i = 7; i < 71; i++) {
      char c = digest.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Returns the registry and path, without tag or digest.
   *
   * @return for example {@code reg:5000/org/app}
   */
  public String name() {
    return registry.isEmpty() ? path : registry + "/" + path;
  }

  /**
   * Returns a copy with another registry.
   *
   * @param newRegistry the registry, empty for none
   * @return the copy
   */
  public ImageRef withRegistry(String newRegistry) {
    return new ImageRef(newRegistry, path, tag, digest);
  }

  /**
   * Returns a copy with another tag.
   *
   * @param newTag the tag, empty for none
   * @return the copy
   */
  public ImageRef withTag(String newTag) {
    return new ImageRef(registry, path, newTag, digest);
  }

  /**
   * Returns a copy with another digest.
   *
   * @param newDigest the digest, empty for none
   * @return the copy
   */
  public ImageRef withDigest(String newDigest) {
    return new ImageRef(registry, path, tag, newDigest);
  }

  /**
   * Returns the source commit named by a release-commit tag ({@code <version>-g<40 hex>}).
   *
   * @return the 40-hex commit, or empty when the tag carries none
   */
  public Optional<String> releaseCommit() {
    Matcher m = RELEASE_COMMIT.matcher(tag);
    return m.matches() ? Optional.of(m.group(2)) : Optional.empty();
  }

  /**
   * Strips a release-commit suffix ({@code -g} followed by exactly 40 lowercase hex digits) from a
   * tag.
   *
   * @param tag for example {@code v0.6.3-g0123...}
   * @return for example {@code v0.6.3}; the tag unchanged when it has no such suffix
   */
  public static String releaseVersion(String tag) {
    Matcher m = RELEASE_COMMIT.matcher(tag);
    return m.matches() ? m.group(1) : tag;
  }

  /**
   * Extracts the sha256 digest from a pod container status's image id.
   *
   * @param imageId for example {@code docker-pullable://reg/app@sha256:...} or {@code sha256:...}
   * @return the digest, or empty when the id carries no sha256 digest
   */
  public static Optional<String> digestFromImageId(String imageId) {
    int at = imageId.lastIndexOf('@');
    String candidate = at >= 0 ? imageId.substring(at + 1) : imageId;
    return isSha256Digest(candidate) ? Optional.of(candidate) : Optional.empty();
  }

  /**
   * Renders the reference.
   *
   * @return {@code [registry/]path[:tag][@digest]}
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(name());
    if (!tag.isEmpty()) {
      sb.append(':').append(tag);
    }
    if (!digest.isEmpty()) {
      sb.append('@').append(digest);
    }
    return sb.toString();
  }
}
