package dev.capstan.release.file;

import org.jspecify.annotations.Nullable;

/**
 * Values given outside the file (e.g. {@code -n} and {@code --release} on a command line) that win
 * over the file's {@code metadata}, and the namespace to use when neither names one.
 *
 * @param namespace the release namespace, or {@code null} to use the file's
 * @param name the release name, or {@code null} to use the file's
 * @param defaultNamespace the release namespace when neither {@code namespace} nor the file names
 *     one (a command line's kubeconfig context namespace), or {@code null} for {@code default}
 */
public record Overrides(
    @Nullable String namespace, @Nullable String name, @Nullable String defaultNamespace) {
  private static final Overrides NONE = new Overrides(null, null);

  /**
   * Overrides of the namespace and name, with {@code default} as the namespace when neither they
   * nor the file name one.
   *
   * @param namespace the release namespace, or {@code null} to use the file's
   * @param name the release name, or {@code null} to use the file's
   */
  public Overrides(@Nullable String namespace, @Nullable String name) {
    this(namespace, name, null);
  }

  /** No overrides. */
  public static Overrides none() {
    return NONE;
  }

  /** {@link #defaultNamespace()} when it is set, else {@code default}. */
  String fallbackNamespace() {
    return defaultNamespace == null || defaultNamespace.isBlank() ? "default" : defaultNamespace;
  }
}
