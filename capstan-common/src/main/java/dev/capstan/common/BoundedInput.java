package dev.capstan.common;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;

/**
 * Reads an input file with its size checked while reading: directories, devices, pipes and sockets
 * are refused before a byte is read, and a file larger than the limit is refused after at most
 * {@code limit + 1} bytes, so {@code /dev/zero} or a growing file cannot exhaust memory.
 */
public final class BoundedInput {
  private static final int CHUNK = 64 * 1024;

  private BoundedInput() {}

  /**
   * Reads a regular file of at most {@code maxBytes}.
   *
   * @param file the file (symbolic links are followed)
   * @param maxBytes the largest size accepted
   * @return the file's bytes
   * @throws InvalidDocumentException when the file is missing, not a regular file, unreadable or
   *     larger than {@code maxBytes}
   */
  public static byte[] read(Path file, int maxBytes) {
    return read(file, file.toString(), maxBytes);
  }

  /**
   * Reads a regular file of at most {@code maxBytes}, naming it in messages as the user gave it.
   *
   * @param file the file (symbolic links are followed)
   * @param name how to name the file in a message, for example the path as typed
   * @param maxBytes the largest size accepted
   * @return the file's bytes
   * @throws InvalidDocumentException when the file is missing, not a regular file, unreadable or
   *     larger than {@code maxBytes}
   */
  public static byte[] read(Path file, String name, int maxBytes) {
    String shown = Escapes.quote(name);
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new InvalidDocumentException("no such file: " + shown);
    } catch (IOException e) {
      throw new InvalidDocumentException("cannot read " + shown + ": " + IoFailures.reason(e));
    }
    if (attributes.isDirectory()) {
      throw new InvalidDocumentException(shown + " is a directory; give a file");
    }
    if (!attributes.isRegularFile()) {
      throw new InvalidDocumentException(
          shown + " is not a regular file (a device, pipe or socket); give a file");
    }
    if (attributes.size() > maxBytes) {
      throw tooLarge(shown, attributes.size(), maxBytes);
    }
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, shown, maxBytes);
    } catch (IOException e) {
      throw new InvalidDocumentException("cannot read " + shown + ": " + IoFailures.reason(e));
    }
  }

  /**
   * Reads a stream to its end, refusing it once it passes {@code maxBytes}.
   *
   * @param in the stream; not closed
   * @param what how to name the stream in a message, for example {@code 'standard input'}
   * @param maxBytes the largest size accepted
   * @return the bytes read
   * @throws IOException when the stream fails
   * @throws InvalidDocumentException when the stream holds more than {@code maxBytes}
   */
  public static byte[] read(InputStream in, String what, int maxBytes) throws IOException {
    byte[] buffer = new byte[Math.min(maxBytes + 1, CHUNK)];
    int length = 0;
    while (true) {
      if (length == buffer.length) {
        if (length > maxBytes) {
          throw new InvalidDocumentException(
              what + " is larger than " + InputLimits.human(maxBytes) + " (the limit)");
        }
        buffer = Arrays.copyOf(buffer, (int) Math.min((long) maxBytes + 1, length * 2L));
      }
      int n = in.read(buffer, length, buffer.length - length);
      if (n < 0) {
        return Arrays.copyOf(buffer, length);
      }
      length += n;
    }
  }

  private static InvalidDocumentException tooLarge(String shown, long size, int maxBytes) {
    return new InvalidDocumentException(
        shown
            + " is "
            + size
            + " bytes; the limit is "
            + maxBytes
            + " bytes ("
            + InputLimits.human(maxBytes)
            + ")");
  }
}
