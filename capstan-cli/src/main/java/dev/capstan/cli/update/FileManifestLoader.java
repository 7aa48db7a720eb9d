package dev.capstan.cli.update;

import dev.capstan.common.BoundedInput;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.manifest.PlatformReleases;
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
    try {
      return BoundedInput.read(Path.of(location), PlatformReleases.MAX_BYTES);
    } catch (InvalidDocumentException e) {
      throw new InvalidManifestException(location, List.of(e.getMessage()));
    }
  }

  static InvalidManifestException tooLarge(String location) {
    return new InvalidManifestException(
        location,
        List.of("document is larger than " + PlatformReleases.MAX_BYTES + " bytes (4 MiB)"));
  }
}
