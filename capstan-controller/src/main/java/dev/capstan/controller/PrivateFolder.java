package dev.capstan.controller;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A folder only this process's user reads (0700, its files 0600), for what one rendering of a chart
 * hands Helm as files (the lookup kubeconfig, a repository's CA); deleted when closed.
 */
final class PrivateFolder implements AutoCloseable {
  private final Path root;

  private PrivateFolder(Path root) {
    this.root = root;
  }

  /** A new folder in the system's temporary folder. */
  static PrivateFolder create() {
    try {
      boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
      return new PrivateFolder(
          posix
              ? Files.createTempDirectory(
                  "capstan-chart-",
                  PosixFilePermissions.asFileAttribute(
                      PosixFilePermissions.fromString("rwx------")))
              : Files.createTempDirectory("capstan-chart-"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a private folder for a chart", e);
    }
  }

  /** Writes {@code text} to {@code name} in the folder, readable by this user only. */
  Path write(String name, String text) {
    Path path = root.resolve(name);
    try {
      Files.writeString(path, text, StandardCharsets.UTF_8);
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
      }
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a private file for a chart", e);
    }
  }

  /** Deletes the folder and its files; what cannot be deleted is left to the system. */
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
