package dev.capstan.update.build.process;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.common.JsonMappers;
import dev.capstan.update.ImageBuildException;
import dev.capstan.update.build.ImageRegistry;
import dev.capstan.update.version.ImageRef;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Asks a registry whether it has an image, over the OCI distribution API: {@code HEAD
 * /v2/<name>/manifests/<tag or digest>} accepting OCI and Docker manifests and indexes. 200 means
 * present, 404 absent; anything else (a refused connection, 401 without a way in, 5xx) is an {@link
 * ImageBuildException}, never "absent".
 *
 * <p>Registries on a loopback host ({@code localhost}, {@code 127.0.0.0/8}, {@code [::1]}) are
 * spoken to over plain HTTP, every other over HTTPS (as Docker treats loopback registries as
 * insecure by default). Images without a registry are Docker Hub's ({@code registry-1.docker.io},
 * {@code library/} prepended to one-part names). A {@code 401} with a {@code Bearer} challenge is
 * answered with an anonymous token from the challenge's HTTPS realm (public images on Docker Hub,
 * ghcr.io, quay.io); credentials are not supported.
 */
public final class OciImageRegistry implements ImageRegistry {
  /** The manifest media types the probe accepts. */
  static final String ACCEPT =
      String.join(
          ", ",
          "application/vnd.oci.image.index.v1+json",
          "application/vnd.oci.image.manifest.v1+json",
          "application/vnd.docker.distribution.manifest.list.v2+json",
          "application/vnd.docker.distribution.manifest.v2+json");

  private static final Pattern CHALLENGE_PARAM = Pattern.compile("([a-zA-Z]+)=\"([^\"]*)\"");
  private static final ObjectMapper JSON = JsonMappers.trees();

  private final HttpClient client;
  private final Duration timeout;

  /**
   * Creates the probe.
   *
   * @param client the HTTP client (redirects are followed only if it follows them)
   * @param timeout how long one request may take
   */
  public OciImageRegistry(HttpClient client, Duration timeout) {
    this.client = requireNonNull(client, "client");
    this.timeout = requireNonNull(timeout, "timeout");
  }

  @Override
  public boolean exists(String image) {
    ImageRef ref;
    try {
      ref = ImageRef.parse(image);
    } catch (IllegalArgumentException e) {
      throw new ImageBuildException("registry probe for " + image + " failed: " + e.getMessage());
    }
    URI uri = manifestUri(ref);
    try {
      HttpResponse<Void> response =
          client.send(head(uri, null), HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() == 401) {
        Optional<String> token = anonymousToken(response, image);
        if (token.isPresent()) {
          response = client.send(head(uri, token.get()), HttpResponse.BodyHandlers.discarding());
        }
      }
      return switch (response.statusCode()) {
        case 200 -> true;
        case 404 -> false;
        default ->
            throw new ImageBuildException(
                "registry probe for "
                    + image
                    + " failed: HEAD "
                    + uri
                    + " answered HTTP "
                    + response.statusCode());
      };
    } catch (IOException e) {
      throw new ImageBuildException(
          "registry probe for "
              + image
              + " failed: HEAD "
              + uri
              + ": "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()),
          java.util.List.of(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ImageBuildException(
          "registry probe for " + image + " interrupted", java.util.List.of(), e);
    }
  }

  /**
   * Returns the manifest URL of an image.
   *
   * @param ref the image
   * @return {@code http(s)://<registry>/v2/<name>/manifests/<digest or tag>}
   */
  static URI manifestUri(ImageRef ref) {
    String registry = ref.registry().isEmpty() ? "docker.io" : ref.registry();
    String path = ref.path();
    if (registry.equals("docker.io") || registry.equals("index.docker.io")) {
      registry = "registry-1.docker.io";
      if (!path.contains("/")) {
        path = "library/" + path;
      }
    }
    String reference =
        !ref.digest().isEmpty() ? ref.digest() : ref.tag().isEmpty() ? "latest" : ref.tag();
    return URI.create(
        (isLoopback(registry) ? "http" : "https")
            + "://"
            + registry
            + "/v2/"
            + path
            + "/manifests/"
            + reference);
  }

  /**
   * Tells whether a registry host (with an optional port) is a loopback address.
   *
   * @param registry {@code host[:port]}
   * @return true for {@code localhost}, {@code 127.x.y.z} and {@code [::1]}
   */
  static boolean isLoopback(String registry) {
    String host =
        registry.startsWith("[")
            ? registry.substring(0, registry.indexOf(']') + 1)
            : registry.contains(":") ? registry.substring(0, registry.indexOf(':')) : registry;
    return host.equals("localhost") || host.equals("[::1]") || host.matches("127(\\.\\d{1,3}){3}");
  }

  private HttpRequest head(URI uri, @Nullable String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .method("HEAD", HttpRequest.BodyPublishers.noBody())
            .header("Accept", ACCEPT);
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b.build();
  }

  private Optional<String> anonymousToken(HttpResponse<?> challenge, String image)
      throws IOException, InterruptedException {
    Optional<String> header = challenge.headers().firstValue("WWW-Authenticate");
    if (header.isEmpty() || !header.get().regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    Map<String, String> params = new LinkedHashMap<>();
    Matcher m = CHALLENGE_PARAM.matcher(header.get().substring(7));
    while (m.find()) {
      params.put(m.group(1), m.group(2));
    }
    String realm = params.getOrDefault("realm", "");
    if (!realm.startsWith("https://")) {
      return Optional.empty();
    }
    StringBuilder url = new StringBuilder(realm).append('?');
    for (String key : new String[] {"service", "scope"}) {
      String value = params.get(key);
      if (value != null) {
        url.append(key)
            .append('=')
            .append(URLEncoder.encode(value, StandardCharsets.UTF_8))
            .append('&');
      }
    }
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create(url.substring(0, url.length() - 1)))
                .timeout(timeout)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new ImageBuildException(
          "registry probe for "
              + image
              + " failed: the token service "
              + realm
              + " answered HTTP "
              + response.statusCode());
    }
    JsonNode body = JSON.readTree(response.body());
    String token = body.path("token").asText(body.path("access_token").asText(""));
    return token.isEmpty() ? Optional.empty() : Optional.of(token);
  }
}
