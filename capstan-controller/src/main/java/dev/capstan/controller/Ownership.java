package dev.capstan.controller;

import dev.capstan.common.Escapes;
import dev.capstan.release.model.Release;
import org.jspecify.annotations.Nullable;

/**
 * Which releases a Release may uninstall, by the source its casts record ({@link
 * ReleaseResource#source}, read back with {@link ReleaseResource#managedBy}): one whose latest
 * revision is its own; it never deletes what another Release, the CLI or a host of the library cast
 * (ARCHITECTURE.md, "The Release controller").
 */
final class Ownership {
  private Ownership() {}

  /**
   * Why the deleted Release {@code key} leaves the release whose latest revision is {@code latest}
   * installed, or null when that revision names {@code key} and the Release uninstalls it.
   */
  static @Nullable String uninstallRefusal(ReleaseKey key, Release latest) {
    if (ReleaseResource.managedBy(latest.source()).filter(key::equals).isPresent()) {
      return null;
    }
    return "release "
        + latest.name()
        + " left installed: "
        + castBy(latest)
        + ", not by this Release, and a Release uninstalls only what it cast; to uninstall it:"
        + " capstan release uninstall "
        + latest.name()
        + " -n "
        + latest.namespace();
  }

  /**
   * {@code its latest revision 2 was cast by Release shop/web}, or {@code ... by no Release (source
   * 'release.yaml')}.
   */
  private static String castBy(Release latest) {
    String source = latest.source();
    return "its latest revision "
        + latest.revision()
        + " was cast by "
        + ReleaseResource.managedBy(source)
            .map(k -> "Release " + k)
            .orElseGet(
                () ->
                    "no Release ("
                        + (source == null
                            ? "no source recorded"
                            : "source " + Escapes.quote(source))
                        + ")");
  }
}
