package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which addresses are a machine's own or a private network's (literals only: no name is looked up,
 * nothing is connected to).
 */
class PrivateAddressesTest {
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0.0.0.0         | this host, 0.0.0.0/8",
        "0.1.2.3         | this host, 0.0.0.0/8",
        "::              | this host, ::",
        "127.0.0.1       | loopback, 127.0.0.0/8",
        "127.255.0.9     | loopback, 127.0.0.0/8",
        "::1             | loopback, ::1",
        "::ffff:127.0.0.1 | loopback, 127.0.0.0/8",
        "10.0.0.1        | private, 10.0.0.0/8",
        "10.96.0.10      | private, 10.0.0.0/8",
        "172.16.0.1      | private, 172.16.0.0/12",
        "172.31.255.254  | private, 172.16.0.0/12",
        "192.168.1.1     | private, 192.168.0.0/16",
        "::ffff:10.1.2.3 | private, 10.0.0.0/8",
        "100.64.0.1      | carrier-grade NAT, 100.64.0.0/10",
        "100.127.255.255 | carrier-grade NAT, 100.64.0.0/10",
        "169.254.169.254 | link-local, 169.254.0.0/16",
        "fe80::1         | link-local, fe80::/10",
        "fc00::1         | unique local, fc00::/7",
        "fd12:3456::1    | unique local, fc00::/7",
        "fec0::1         | site-local, fec0::/10",
        "::10.0.0.1      | private, 10.0.0.0/8, carried in ::/96",
        "64:ff9b::10.0.0.1 | private, 10.0.0.0/8, carried in 64:ff9b::/96",
        "64:ff9b::7f00:1 | loopback, 127.0.0.0/8, carried in 64:ff9b::/96",
      })
  void anAddressOfTheMachineOrAPrivateNetworkIsNamedWithItsRange(String address, String why)
      throws Exception {
    assertThat(PrivateAddresses.at(InetAddress.getByName(address))).as(address).isEqualTo(why);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "1.1.1.1",
        "9.255.255.255",
        "11.0.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.167.1.1",
        "192.169.0.1",
        "100.63.255.255",
        "100.128.0.0",
        "126.255.255.255",
        "128.0.0.1",
        "169.253.0.1",
        "2001:db8::1",
        "2a00:1450::1",
        "fbff::1",
        "fe00::1",
        "64:ff9b::8.8.8.8",
        "::8.8.8.8",
      })
  void everyOtherAddressIsPublic(String address) throws Exception {
    assertThat(PrivateAddresses.at(InetAddress.getByName(address))).as(address).isNull();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "Charts.Internal    | charts.internal",
        "FD00:0:0::5        | fd00:0:0:0:0:0:0:5",
        "10.0.0.5           | 10.0.0.5",
        "cafe:beef.example  | cafe:beef.example",
      })
  void aHostIsComparedInOneForm(String host, String canonical) {
    assertThat(PrivateAddresses.canonical(host)).isEqualTo(canonical);
  }
}
