package dev.capstan.update.command;

import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.manifest.PlatformReleases;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Reads manifests from local files, and from {@code https://} URLs when given a fetcher. */
final class FileManifestLoader implements ManifestLoader {
  private final @Nullable HttpsFetcher https;

  FileManifestLoader(@Nullable HttpsFetcher https) {
    this.https = https;
  }

  @Override
  public byte[] load(String location) {
    if (location.startsWith("http://")) {
      throw new InvalidManifestException(
          location, List.of("refusing to fetch release manifest over plain http"));
    }
    if (location.startsWith("https://")) {
      if (https == null) {
        throw new InvalidManifestException(
            location,
            List.of(
                "cannot fetch https URLs with this loader; download the file and pass its path"));
      }
      return https.fetch(location);
    }
    Path path = Path.of(location);
    try (InputStream in = Files.newInputStream(path)) {
      byte[] bytes = in.readNBytes(PlatformReleases.MAX_BYTES + 1);
      if (bytes.length > PlatformReleases.MAX_BYTES) {
        throw tooLarge(location);
      }
      return bytes;
    } catch (IOException e) {
      throw new InvalidManifestException(location, List.of("cannot read: " + e));
    }
  }

  static InvalidManifestException tooLarge(String location) {
    return new InvalidManifestException(
        location,
        List.of("document is larger than " + PlatformReleases.MAX_BYTES + " bytes (4 MiB)"));
  }
}
