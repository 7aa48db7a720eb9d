package dev.capstan.cli.update;

import java.net.http.HttpClient;
import java.time.Duration;

/** Reads release manifests and CRD bundles by location. Plain {@code http://} is always refused. */
@FunctionalInterface
public interface ManifestLoader {

  /**
   * Reads a document.
   *
   * @param location a file path or an {@code https://} URL
   * @return its bytes, at most 4 MiB
   * @throws dev.capstan.update.InvalidManifestException when it cannot be read, is too large, or is
   *     an {@code http://} URL
   */
  byte[] load(String location);

  /**
   * Returns a loader that reads local files only.
   *
   * @return the loader
   */
  static ManifestLoader files() {
    return new FileManifestLoader(null);
  }

  /**
   * Returns a loader that reads local files and fetches {@code https://} URLs (30 s timeout, HTTP
   * 200 required).
   *
   * @param client the HTTP client
   * @return the loader
   */
  static ManifestLoader filesAndHttps(HttpClient client) {
    return new FileManifestLoader(new HttpsFetcher(client, Duration.ofSeconds(30)));
  }
}
