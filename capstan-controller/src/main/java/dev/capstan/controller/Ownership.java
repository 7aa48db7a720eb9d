package dev.capstan.controller;

import dev.capstan.common.Escapes;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Which releases a Release may cast and uninstall, by the source its casts record ({@link
 * ReleaseResource#source}, read back with {@link ReleaseResource#managedBy}): it casts a release
 * that is not recorded, is uninstalled, or is its own, and uninstalls one whose latest revision is
 * its own; it never takes over or deletes what another Release, the CLI or a host of the library
 * cast (ARCHITECTURE.md, "The Release controller").
 */
final class Ownership {
  private Ownership() {}

  /**
   * Why the Release {@code key} may not cast the release whose latest revision is {@code latest},
   * or null when it may: the release is not recorded, or it is uninstalled (a tombstone owns no
   * object), or its latest revision names {@code key}, or no Release cast that revision (the CLI
   * over a Release's release, which the Release casts again, as the CLI warns) and the newest
   * revision a Release cast since the last uninstall names {@code key}.
   *
   * @param history the release's revisions, newest first; read only when no Release cast the latest
   */
  static @Nullable String castRefusal(
      ReleaseKey key, @Nullable Release latest, Supplier<List<Release>> history) {
    if (latest == null || latest.status() == ReleaseStatus.UNINSTALLED) {
      return null;
    }
    Optional<ReleaseKey> manager = ReleaseResource.managedBy(latest.source());
    if (manager.isEmpty()) {
      for (Release r : history.get()) {
        if (r.status() == ReleaseStatus.UNINSTALLED) {
          break;
        }
        manager = ReleaseResource.managedBy(r.source());
        if (manager.isPresent()) {
          break;
        }
      }
    }
    if (manager.isPresent() && manager.get().equals(key)) {
      return null;
    }
    return "release "
        + latest.name()
        + " is not this Release's to cast: "
        + castBy(latest)
        + "; a Release casts over no release that another Release or the CLI cast: to hand it to"
        + " this Release, uninstall it first (capstan release uninstall "
        + latest.name()
        + " -n "
        + latest.namespace()
        + ": its objects are deleted), and this Release casts it anew";
  }

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
