package dev.capstan.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A folder only this process's user may read (0700, its files 0600 where the file system has POSIX
 * permissions), for what a child process must be handed as files and no other user of the machine
 * may read: credentials, a kubeconfig, values. Deleted, with everything in it, when closed.
 */
public final class PrivateFolder implements AutoCloseable {
  private final Path root;

  private PrivateFolder(Path root) {
    this.root = root;
  }

  /**
   * A new folder named {@code prefix} and a random suffix.
   *
   * @param parent where to make it, or {@code null} for the system's temporary folder
   * @param prefix the start of its name
   * @throws UncheckedIOException when it cannot be made
   */
  public static PrivateFolder create(@Nullable Path parent, String prefix) {
    try {
      Path dir;
      if (posix()) {
        var owner =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
        dir =
            parent == null
                ? Files.createTempDirectory(prefix, owner)
                : Files.createTempDirectory(parent, prefix, owner);
      } else {
        dir =
            parent == null
                ? Files.createTempDirectory(prefix)
                : Files.createTempDirectory(parent, prefix);
      }
      return new PrivateFolder(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a private folder: " + e.getMessage(), e);
    }
  }

  /** The folder. */
  public Path root() {
    return root;
  }

  /**
   * Writes {@code text} (UTF-8) to {@code name} in the folder, readable by this user only.
   *
   * @return the file
   * @throws UncheckedIOException when it cannot be written
   */
  public Path write(String name, String text) {
    Path path = root.resolve(name);
    try {
      Files.createDirectories(path.getParent());
      Files.writeString(path, text, StandardCharsets.UTF_8);
      if (posix()) {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
      }
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a private file: " + e.getMessage(), e);
    }
  }

  /** Deletes the folder and everything in it; what cannot be deleted is left to the system. */
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

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
