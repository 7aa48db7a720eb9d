package dev.capstan.image;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The OCI distribution API's push and pull, as a container runtime and a pushing tool use it: blobs
 * by digest (a monolithic upload), manifests by tag. Plain HTTP, for a registry on 127.0.0.1 only.
 * Every blob and manifest read is checked against its digest.
 */
final class Distribution {
  static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

  private final String host;
  private final HttpClient http = HttpClient.newHttpClient();

  Distribution(String host) {
    if (!host.startsWith("127.0.0.1:")) {
      throw new IllegalArgumentException("a loopback registry only: " + host);
    }
    this.host = host;
  }

  static String digest(byte[] bytes) {
    try {
      return "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Uploads a blob in one request (POST, then PUT with its digest); returns the digest. */
  String pushBlob(String repository, byte[] blob) throws IOException, InterruptedException {
    String digest = digest(blob);
    HttpResponse<String> started =
        send(
            HttpRequest.newBuilder(uri("/v2/" + repository + "/blobs/uploads/"))
                .POST(HttpRequest.BodyPublishers.noBody()),
            202);
    String location =
        started
            .headers()
            .firstValue("Location")
            .orElseThrow(() -> new IllegalStateException("no Location for the upload"));
    URI upload = URI.create("http://" + host).resolve(location);
    String separator = upload.getRawQuery() == null ? "?" : "&";
    send(
        HttpRequest.newBuilder(URI.create(upload + separator + "digest=" + digest))
            .header("Content-Type", "application/octet-stream")
            .PUT(HttpRequest.BodyPublishers.ofByteArray(blob)),
        201);
    return digest;
  }

  /** Puts an OCI image manifest under a tag; returns the digest the registry gives it. */
  String pushManifest(String repository, String tag, byte[] manifest)
      throws IOException, InterruptedException {
    HttpResponse<String> put =
        send(
            HttpRequest.newBuilder(uri("/v2/" + repository + "/manifests/" + tag))
                .header("Content-Type", OCI_MANIFEST)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(manifest)),
            201);
    return put.headers()
        .firstValue("Docker-Content-Digest")
        .orElseThrow(() -> new IllegalStateException("no digest for the manifest"));
  }

  /** The manifest of {@code repository:tag}, checked against the digest the registry states. */
  byte[] pullManifest(String repository, String tag) throws IOException, InterruptedException {
    HttpResponse<byte[]> got =
        http.send(
            HttpRequest.newBuilder(uri("/v2/" + repository + "/manifests/" + tag))
                .header("Accept", OCI_MANIFEST)
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    expect(got.statusCode(), 200, "GET manifest " + repository + ":" + tag);
    String stated = got.headers().firstValue("Docker-Content-Digest").orElse("");
    if (!stated.equals(digest(got.body()))) {
      throw new IllegalStateException("manifest digest " + stated + " does not match its bytes");
    }
    return got.body();
  }

  /** A blob, checked against its digest. */
  byte[] pullBlob(String repository, String digest) throws IOException, InterruptedException {
    HttpResponse<byte[]> got =
        http.send(
            HttpRequest.newBuilder(uri("/v2/" + repository + "/blobs/" + digest))
                .timeout(Duration.ofMinutes(2))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    expect(got.statusCode(), 200, "GET blob " + digest);
    if (!digest.equals(digest(got.body()))) {
      throw new IllegalStateException("blob " + digest + " does not match its bytes");
    }
    return got.body();
  }

  private URI uri(String path) {
    return URI.create("http://" + host + path);
  }

  private HttpResponse<String> send(HttpRequest.Builder request, int expected)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            request.timeout(Duration.ofMinutes(2)).build(), HttpResponse.BodyHandlers.ofString());
    expect(response.statusCode(), expected, response.request().method() + " " + response.uri());
    return response;
  }

  private static void expect(int status, int expected, String what) {
    if (status != expected) {
      throw new IllegalStateException(what + " answered HTTP " + status + ", not " + expected);
    }
  }
}
