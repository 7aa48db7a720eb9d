package dev.capstan.common;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/** How a failed file operation reads in a one-line message: the reason, never a class name. */
public final class IoFailures {
  private IoFailures() {}

  /**
   * The reason {@code e} gives, escaped: {@code permission denied}, {@code no such file or
   * directory}, {@code 'PATH' already exists} (a file where a folder was to be made), the operating
   * system's words for another file-system failure ({@code Not a directory}), else the exception's
   * message.
   */
  public static String reason(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof FileAlreadyExistsException f) {
      return Escapes.quote(String.valueOf(f.getFile())) + " already exists"; // a file, not a folder
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return Escapes.escape(f.getReason());
    }
    return Escapes.escape(String.valueOf(e.getMessage()));
  }
}
