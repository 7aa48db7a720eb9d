package dev.capstan.cli.update;

import dev.capstan.update.InvalidManifestException;
import dev.capstan.update.manifest.PlatformReleases;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** Fetches release documents over https: one GET, HTTP 200 required, 4 MiB at most. */
final class HttpsFetcher {
  private final HttpClient client;
  private final Duration timeout;

  HttpsFetcher(HttpClient client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  byte[] fetch(String url) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
    try {
      HttpResponse<InputStream> response =
          client.send(request, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        if (response.statusCode() != 200) {
          throw new InvalidManifestException(
              url, List.of("GET returned HTTP " + response.statusCode() + ", expected 200"));
        }
        byte[] bytes = body.readNBytes(PlatformReleases.MAX_BYTES + 1);
        if (bytes.length > PlatformReleases.MAX_BYTES) {
          throw FileManifestLoader.tooLarge(url);
        }
        return bytes;
      }
    } catch (IOException e) {
      throw new InvalidManifestException(url, List.of("cannot fetch: " + e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InvalidManifestException(url, List.of("interrupted while fetching"));
    }
  }
}
