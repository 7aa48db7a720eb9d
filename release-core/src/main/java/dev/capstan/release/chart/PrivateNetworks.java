package dev.capstan.release.chart;

import dev.capstan.common.Escapes;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * Whether a chart's fetches may reach private addresses: loopback, this host ({@code 0.0.0.0/8},
 * {@code ::}), the private IPv4 ranges ({@code 10.0.0.0/8}, {@code 172.16.0.0/12}, {@code
 * 192.168.0.0/16}), carrier-grade NAT ({@code 100.64.0.0/10}), unique local IPv6 ({@code fc00::/7})
 * and link-local. A person's own renders reach them (a registry on their machine, their company's
 * repository): {@link #reachable()}. A renderer serving tenants keeps their charts off the
 * cluster's network, but for the repositories it trusts, wherever those resolve: {@link
 * #onlyAt(List)}; then no chart URL of an index, redirect or registry's blob location leads a
 * tenant's fetch to a cluster Service, another tenant's pod or a node's port. A cloud's metadata
 * service is refused either way.
 *
 * @param refused whether private addresses are refused, but at the hosts of {@code trusted}
 * @param trusted the repositories whose host and port a fetch reaches whatever address it resolves
 *     to ({@code https://}, {@code oci://} or {@code http://} URLs with a host; the port is the
 *     URL's, else 443, or 80 for {@code http://}); empty when private addresses are reachable
 */
public record PrivateNetworks(boolean refused, List<String> trusted) {
  private static final PrivateNetworks REACHABLE = new PrivateNetworks(false, List.of());

  /**
   * Checks the trusted repositories.
   *
   * @throws IllegalArgumentException naming a repository that is no URL with a host, or trusted
   *     repositories where private addresses are reachable anyway
   */
  public PrivateNetworks {
    trusted = List.copyOf(trusted);
    if (!refused && !trusted.isEmpty()) {
      throw new IllegalArgumentException(
          "trusted repositories are exceptions to refused private addresses; where private"
              + " addresses are reachable, give none: "
              + Escapes.quote(String.join(", ", trusted)));
    }
    for (String repository : trusted) {
      hostAndPort(repository);
    }
  }

  /** Private addresses reachable (a cloud's metadata service refused still): the default. */
  public static PrivateNetworks reachable() {
    return REACHABLE;
  }

  /**
   * Private addresses refused, but at the host and port of each of {@code repositories}: the
   * repositories a platform team trusts, such as a chart repository in the cluster itself.
   *
   * @throws IllegalArgumentException naming a repository that is no URL with a host
   */
  public static PrivateNetworks onlyAt(List<String> repositories) {
    return new PrivateNetworks(true, repositories);
  }

  /**
   * The {@code host:port} each trusted repository is reached at, the host in lower case, an IPv6
   * address in brackets ({@code charts.internal:443}, {@code [fd00::5]:5000}), in the order given.
   */
  public List<String> trustedHostsAndPorts() {
    return trusted.stream().map(PrivateNetworks::hostAndPort).distinct().toList();
  }

  private static String hostAndPort(String repository) {
    String scheme = null;
    String host = null;
    int port = -1;
    try {
      URI uri = new URI(repository);
      scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
      host = uri.getHost();
      port = uri.getPort();
    } catch (URISyntaxException e) {
      // said below
    }
    if (host == null
        || host.isEmpty()
        || !("https".equals(scheme) || "oci".equals(scheme) || "http".equals(scheme))) {
      throw new IllegalArgumentException(
          "a trusted repository must be an https://, oci:// or http:// URL with a host: "
              + Escapes.quote(repository));
    }
    return host.toLowerCase(Locale.ROOT)
        + ":"
        + (port >= 0 ? port : "http".equals(scheme) ? 80 : 443);
  }
}
