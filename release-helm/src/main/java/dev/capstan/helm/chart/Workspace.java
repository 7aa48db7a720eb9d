package dev.capstan.helm.chart;

import dev.capstan.release.chart.ChartException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One rendering's private folder: Helm's config, cache and data homes, the credentials files, the
 * values files, the pulled chart. Readable by this user only (0700, files 0600), so no other user
 * of the machine reads a credential or a value; deleted when the rendering ends.
 */
final class Workspace implements AutoCloseable {
  private final Path root;

  private Workspace(Path root) {
    this.root = root;
  }

  /** A new private folder under {@code parent} (the system's temporary folder when null). */
  static Workspace create(@org.jspecify.annotations.Nullable Path parent) {
    try {
      boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
      Path dir =
          posix
              ? (parent == null
                  ? Files.createTempDirectory(
                      "capstan-helm-",
                      PosixFilePermissions.asFileAttribute(
                          PosixFilePermissions.fromString("rwx------")))
                  : Files.createTempDirectory(
                      parent,
                      "capstan-helm-",
                      PosixFilePermissions.asFileAttribute(
                          PosixFilePermissions.fromString("rwx------"))))
              : (parent == null
                  ? Files.createTempDirectory("capstan-helm-")
                  : Files.createTempDirectory(parent, "capstan-helm-"));
      return new Workspace(dir);
    } catch (IOException e) {
      throw new ChartException("cannot create a folder for Helm: " + e.getMessage(), e);
    }
  }

  Path root() {
    return root;
  }

  /** {@code root/name}, its parent folders created. */
  Path file(String name) {
    Path path = root.resolve(name);
    try {
      Files.createDirectories(path.getParent());
    } catch (IOException e) {
      throw new ChartException("cannot create a folder for Helm: " + e.getMessage(), e);
    }
    return path;
  }

  /** {@code root/name} as a folder. */
  Path dir(String name) {
    Path path = root.resolve(name);
    try {
      return Files.createDirectories(path);
    } catch (IOException e) {
      throw new ChartException("cannot create a folder for Helm: " + e.getMessage(), e);
    }
  }

  /** Writes {@code text} to {@code root/name}, readable by this user only. */
  Path write(String name, String text) {
    Path path = file(name);
    try {
      Files.writeString(path, text, StandardCharsets.UTF_8);
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
      }
      return path;
    } catch (IOException e) {
      throw new ChartException("cannot write a file for Helm: " + e.getMessage(), e);
    }
  }

  /** Deletes the folder and everything in it; what cannot be deleted is left. */
  @Override
  public void close() {
    try (Stream<Path> all = Files.walk(root)) {
      all.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException ignored) {
                  // left for the system's temporary folder clean-up
                }
              });
    } catch (IOException ignored) {
      // left for the system's temporary folder clean-up
    }
  }
}
