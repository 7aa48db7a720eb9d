package dev.capstan.cli;

import dev.capstan.common.Escapes;
import dev.capstan.controller.ReleaseKey;
import dev.capstan.controller.ReleaseResource;
import dev.capstan.release.model.Release;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The warning before a command changes a release that a {@code Release} resource manages: the
 * controller's casts record the Release as the revision's source ({@link ReleaseResource#source}),
 * so the record a command reads tells it, and the controller would undo the change at its next
 * reconcile.
 */
final class ManagedReleases {
  private ManagedReleases() {}

  /**
   * Prints the warning on standard error when {@code latest} (the release's latest revision, or
   * null when it has none) was cast by a controller for a Release resource.
   *
   * @param what what the command is about to do: {@code cast}, {@code rollback}, {@code uninstall}
   */
  static void warn(Cli cli, @Nullable Release latest, String what) {
    if (latest == null) {
      return;
    }
    Optional<ReleaseKey> managed = ReleaseResource.managedBy(latest.source());
    if (managed.isEmpty()) {
      return;
    }
    ReleaseKey key = managed.get();
    cli.err()
        .println(
            "capstan: warning: release "
                + Escapes.escape(latest.namespace() + "/" + latest.name())
                + " is managed by the Release resource "
                + Escapes.escape(key.toString())
                + ": its controller casts the Release again at its next reconcile and undoes this "
                + what
                + "; suspend it first: capstan controller suspend "
                + Escapes.escape(key.name())
                + " -n "
                + Escapes.escape(key.namespace()));
  }
}
