package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --http-address}: an IP literal and a port, nothing resolved; anything else refused. */
class ControllerRunOptionsTest {
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
