package dev.capstan.release.file;

import org.jspecify.annotations.Nullable;

/**
 * Values given outside the file (e.g. {@code -n} and {@code --release} on a command line) that win
 * over the file's {@code metadata}.
 *
 * @param namespace the release namespace, or {@code null} to use the file's (default {@code
 *     default})
 * @param name the release name, or {@code null} to use the file's
 */
public record Overrides(@Nullable String namespace, @Nullable String name) {
  private static final Overrides NONE = new Overrides(null, null);

  /** No overrides. */
  public static Overrides none() {
    return NONE;
  }
}
