package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.controller.Tenancy;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --http-address}: an IP literal and a port, nothing resolved; anything else refused. {@code
 * --chart-repositories}: URLs, each allowing itself and what lies under it.
 */
class ControllerRunOptionsTest {
  @Test
  void chartRepositoriesAllowThemselvesAndWhatLiesUnderThemOnly() {
    ControllerRunOptions options = new ControllerRunOptions();
    options.chartRepositories =
        List.of("https://charts.example.com/team-a/", "oci://registry.example.com/charts");

    Tenancy tenancy = options.tenancy();

    assertThat(tenancy.chartRepositories())
        .containsExactly("https://charts.example.com/team-a/", "oci://registry.example.com/charts");
    assertThat(
            Stream.of(
                    "https://charts.example.com/team-a",
                    "https://charts.example.com/team-a/stable",
                    "oci://registry.example.com/charts/",
                    "oci://registry.example.com/charts/web",
                    "https://charts.example.com/team-ab",
                    "https://charts.example.com",
                    "https://charts.example.com.evil.io/team-a",
                    "oci://registry.example.com/chartsx",
                    "https://registry.example.com/charts",
                    "https://charts.example.com/team-a/../team-b",
                    "https://charts.example.com/team-a/%2E%2E/team-b",
                    "https://charts.example.com/team-a/..")
                .filter(tenancy::allowsChartRepository))
        .containsExactly(
            "https://charts.example.com/team-a",
            "https://charts.example.com/team-a/stable",
            "oci://registry.example.com/charts/",
            "oci://registry.example.com/charts/web");
    assertThat(new ControllerRunOptions().tenancy().allowsChartRepository("https://any.io"))
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://charts.example.com", "charts.example.com", "https://", ""})
  void aChartRepositoryThatIsNoHttpsOrOciUrlIsRefusedNamingIt(String repository) {
    ControllerRunOptions options = new ControllerRunOptions();
    options.chartRepositories = List.of(repository);

    assertThatThrownBy(options::tenancy)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--chart-repositories: a chart repository must be an https:// or oci:// URL with a"
                + " host, such as https://charts.example.com or oci://registry.example.com/charts: '"
                + repository
                + "'");
  }

  @ParameterizedTest
  @CsvSource({
    "127.0.0.1:8080, /127.0.0.1, 8080",
    "0.0.0.0:0, /0.0.0.0, 0",
    "[::1]:9090, /0:0:0:0:0:0:0:1, 9090"
  })
  void anAddressIsAnIpLiteralAndAPort(String text, String host, int port) {
    InetSocketAddress a = ControllerRunOptions.address(text);

    assertThat(a.getAddress().toString()).isEqualTo(host);
    assertThat(a.getPort()).isEqualTo(port);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "localhost:8080",
        ":8080",
        "127.0.0.1",
        "127.0.0.1:70000",
        "256.1.1.1:80",
        "1.2.3.4:x"
      })
  void anythingElseIsRefusedNamingTheRuleAndTheValue(String text) {
    assertThatThrownBy(() -> ControllerRunOptions.address(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--http-address must be an IP address and a port, such as 127.0.0.1:8080, 0.0.0.0:8080"
                + " or [::1]:8080: '"
                + text
                + "'");
  }
}
