package dev.capstan.helm.chart;

import dev.capstan.common.PrivateFolder;
import dev.capstan.release.chart.ChartException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One rendering's private folder: Helm's config, cache and data homes, the credentials files, the
 * values files, the pulled chart. Readable by this user only (0700, files 0600), so no other user
 * of the machine reads a credential or a value; deleted when the rendering ends.
 */
final class Workspace implements AutoCloseable {
  private final PrivateFolder folder;

  private Workspace(PrivateFolder folder) {
    this.folder = folder;
  }

  /** A new private folder under {@code parent} (the system's temporary folder when null). */
  static Workspace create(@org.jspecify.annotations.Nullable Path parent) {
    try {
      return new Workspace(PrivateFolder.create(parent, "capstan-helm-"));
    } catch (UncheckedIOException e) {
      throw new ChartException("cannot create a folder for Helm: " + e.getMessage(), e);
    }
  }

  Path root() {
    return folder.root();
  }

  /** {@code root/name}, its parent folders created. */
  Path file(String name) {
    Path path = root().resolve(name);
    try {
      Files.createDirectories(path.getParent());
    } catch (IOException e) {
      throw new ChartException("cannot create a folder for Helm: " + e.getMessage(), e);
    }
    return path;
  }

  /** {@code root/name} as a folder. */
  Path dir(String name) {
    Path path = root().resolve(name);
    try {
      return Files.createDirectories(path);
    } catch (IOException e) {
      throw new ChartException("cannot create a folder for Helm: " + e.getMessage(), e);
    }
  }

  /** Writes {@code text} to {@code root/name}, readable by this user only. */
  Path write(String name, String text) {
    try {
      return folder.write(name, text);
    } catch (UncheckedIOException e) {
      throw new ChartException("cannot write a file for Helm: " + e.getMessage(), e);
    }
  }

  /** Deletes the folder and everything in it; what cannot be deleted is left. */
  @Override
  public void close() {
    folder.close();
  }
}
