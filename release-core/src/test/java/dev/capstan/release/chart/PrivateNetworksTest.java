package dev.capstan.release.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which repositories a fetch kept off private addresses may still reach, and at which port. */
class PrivateNetworksTest {
  @Test
  void aTrustedRepositoryIsReachedAtItsHostAndPortItsSchemesByDefault() {
    PrivateNetworks networks =
        PrivateNetworks.onlyAt(
            List.of(
                "https://Charts.Internal/team-a",
                "oci://registry.platform.svc:5000/charts",
                "oci://[FD00::5]/charts",
                "http://chartmuseum.platform",
                "https://charts.internal/team-b"));

    assertThat(networks.refused()).isTrue();
    assertThat(networks.trustedHostsAndPorts())
        .containsExactly(
            "charts.internal:443",
            "registry.platform.svc:5000",
            "[fd00::5]:443",
            "chartmuseum.platform:80");
    assertThat(PrivateNetworks.reachable().refused()).isFalse();
    assertThat(PrivateNetworks.reachable().trustedHostsAndPorts()).isEmpty();
  }

  @Test
  void aTrustedRepositoryIsAUrlWithAHostAndOnlyAnExceptionToARefusal() {
    assertThatThrownBy(() -> PrivateNetworks.onlyAt(List.of("charts.internal")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a trusted repository must be an https://, oci:// or http:// URL with a host:"
                + " 'charts.internal'");
    assertThatThrownBy(() -> PrivateNetworks.onlyAt(List.of("file:///charts")))
        .hasMessage(
            "a trusted repository must be an https://, oci:// or http:// URL with a host:"
                + " 'file:///charts'");
    assertThatThrownBy(() -> new PrivateNetworks(false, List.of("https://charts.internal")))
        .hasMessage(
            "trusted repositories are exceptions to refused private addresses; where private"
                + " addresses are reachable, give none: 'https://charts.internal'");
  }

  @Test
  void theAccessSaysWhetherPrivateAddressesAreRefused() {
    RepositoryAccess access =
        RepositoryAccess.anonymous()
            .withCredentials("bot", "hunter2")
            .withPrivateNetworks(PrivateNetworks.onlyAt(List.of("https://charts.internal")));

    assertThat(access.toString())
        .isEqualTo(
            "RepositoryAccess[user bot, password (hidden), private addresses refused but at"
                + " [charts.internal:443]]");
    assertThat(RepositoryAccess.anonymous().privateNetworks())
        .isEqualTo(PrivateNetworks.reachable());
    assertThat(access.withCaFile("/ca.pem").privateNetworks().refused()).isTrue();
  }
}
