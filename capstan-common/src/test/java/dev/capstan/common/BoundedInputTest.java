package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

class BoundedInputTest {
  @TempDir Path dir;

  @Test
  void aRegularFileWithinTheLimitIsReadWhole() throws IOException {
    Path file = Files.writeString(dir.resolve("r.yaml"), "a: 1\n");
    assertThat(BoundedInput.read(file, 5)).isEqualTo("a: 1\n".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aFileOverTheLimitIsRefusedWithItsSizeAndTheLimit() throws IOException {
    Path file = Files.write(dir.resolve("big.yaml"), new byte[5000]);
    assertThatThrownBy(() -> BoundedInput.read(file, 4096))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("'" + file + "' is 5000 bytes; the limit is 4096 bytes (4 KiB)");
  }

  @Test
  void aDirectoryIsRefusedBeforeReading() {
    assertThatThrownBy(() -> BoundedInput.read(dir, 4096))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("'" + dir + "' is a directory; give a file");
  }

  @Test
  void aMissingFileIsNamed() {
    Path file = dir.resolve("gone.yaml");
    assertThatThrownBy(() -> BoundedInput.read(file, 4096))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("no such file: '" + file + "'");
  }

  @Test
  void aFileNameWithControlCharactersIsShownEscaped() {
    Path file = dir.resolve("a\u001b[2Jb");
    assertThatThrownBy(() -> BoundedInput.read(file, 4096))
        .hasMessage("no such file: '" + dir + "/a\\u001b[2Jb'");
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  @Timeout(1)
  void aDeviceIsRefusedWithinASecond() {
    assertThatThrownBy(() -> BoundedInput.read(Path.of("/dev/zero"), 4 << 20))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("'/dev/zero' is not a regular file (a device, pipe or socket); give a file");
  }

  @Test
  void anEndlessStreamIsRefusedAfterTheLimitPlusOneByte() {
    long[] served = {0};
    InputStream endless =
        new InputStream() {
          @Override
          public int read() {
            served[0]++;
            return 0;
          }

          @Override
          public int read(byte[] b, int off, int len) {
            served[0] += len;
            return len;
          }
        };
    assertThatThrownBy(() -> BoundedInput.read(endless, "standard input", 1 << 20))
        .isInstanceOf(InvalidDocumentException.class)
        .hasMessage("standard input is larger than 1 MiB (the limit)");
    assertThat(served[0]).isEqualTo((1 << 20) + 1);
  }

  @Test
  void aStreamWithinTheLimitIsReadWhole() throws IOException {
    byte[] data = new byte[200_000];
    data[199_999] = 7;
    assertThat(BoundedInput.read(new ByteArrayInputStream(data), "in", 200_000)).isEqualTo(data);
  }
}
