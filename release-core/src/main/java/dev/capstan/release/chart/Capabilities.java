package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a chart's templates see as {@code .Capabilities}: the target cluster's Kubernetes version
 * and the API versions it serves, as discovery reports them (release-k8s's {@code
 * KubeCapabilities}). Without them Helm renders for its built-in defaults, which is how a chart
 * that requires a recent Kubernetes refuses to render.
 *
 * @param kubeVersion the Kubernetes version, {@code v1.37.2} ({@code .Capabilities.KubeVersion})
 * @param apiVersions every served {@code group/version} and {@code group/version/Kind} ({@code v1},
 *     {@code v1/Secret}, {@code apps/v1/Deployment}), sorted ({@code .Capabilities.APIVersions})
 */
public record Capabilities(String kubeVersion, List<String> apiVersions) {
  private static final Pattern VERSION = Pattern.compile("v?[0-9]+\\.[0-9]+(\\.[0-9]+)?([-+].*)?");
  private static final Pattern API_VERSION =
      Pattern.compile("([a-z0-9.-]+/)?v[0-9a-z]+(/[A-Za-z0-9]+)?");

  /** Checks the version and each API version; sorts the API versions. */
  public Capabilities {
    requireNonNull(kubeVersion, "kubeVersion");
    if (!VERSION.matcher(kubeVersion).matches()) {
      throw new IllegalArgumentException(
          "capabilities.kubeVersion must be a Kubernetes version such as v1.37.2: "
              + Escapes.quote(kubeVersion));
    }
    for (String v : requireNonNull(apiVersions, "apiVersions")) {
      if (v == null || !API_VERSION.matcher(v).matches()) {
        throw new IllegalArgumentException(
            "capabilities.apiVersions: each must be group/version or group/version/Kind: "
                + Escapes.quote(v));
      }
    }
    apiVersions = List.copyOf(new TreeSet<>(apiVersions));
  }
}
