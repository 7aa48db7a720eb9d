package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PrivateFolder}: readable by this user only, and gone with everything in it once closed.
 */
class PrivateFolderTest {
  @Test
  void itsFilesAreThisUsersOnlyAndClosingDeletesThemAll(@TempDir Path parent) throws Exception {
    Path root;
    Path file;
    try (PrivateFolder folder = PrivateFolder.create(parent, "private-")) {
      root = folder.root();
      file = folder.write("config/registry.json", "{\"auths\":{}}");

      assertThat(root.getParent()).isEqualTo(parent);
      assertThat(root.getFileName().toString()).startsWith("private-");
      assertThat(Files.readString(file)).isEqualTo("{\"auths\":{}}");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root)))
          .isEqualTo("rwx------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
    }

    assertThat(file).doesNotExist();
    assertThat(root).doesNotExist();
  }
}
