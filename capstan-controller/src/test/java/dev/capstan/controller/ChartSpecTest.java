package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ChartSpec#metadataService}: every literal form of a cloud's metadata service's address (an
 * address on the pod's link among them) that the controller's Helm would connect to is refused, as
 * the host {@link URI#getHost} gives it; {@link ChartSpec#ownMachine}: every form of the
 * controller's own machine, which Helm reaches past its proxy.
 */
class ChartSpecTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://169.254.169.254/latest",
        "https://169.254.0.1/",
        "https://[::ffff:169.254.169.254]/",
        "https://[::ffff:a9fe:a9fe]/",
        "https://[fe80::1]/",
        "https://[fe80::1%25eth0]/",
        "https://[FE80::a:b%25lo]:8443/x",
        "oci://[fe80::1%25eth0]/charts",
        "https://[fd00:ec2::254]/",
        "https://[fd00:ec2:0:0:0:0:0:254]/",
        "https://100.100.100.200/",
        "https://[::ffff:100.100.100.200]/",
      })
  void aLiteralAddressOnTheLinkOrOfAMetadataServiceIsOne(String url) {
    assertThat(ChartSpec.metadataService(URI.create(url).getHost())).as(url).isTrue();
  }

  /**
   * The forms a C resolver's {@code inet_aton} reads as 169.254.169.254, which a Helm built with
   * cgo connects to (some do not parse as a host for {@link URI}: the controller refuses those
   * anyway).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "2852039166",
        "0xa9fea9fe",
        "0XA9FEA9FE",
        "0251.0376.0251.0376",
        "0xa9.0xfe.0xa9.0xfe",
        "169.254.43518",
        "169.16689662",
        "0251.0xfe.169.254",
        "025177524776",
        "0x646464c8", // 100.100.100.200
        "100.6579400",
      })
  void everyFormACResolverReadsAsAMetadataServicesAddressIsOne(String host) {
    assertThat(ChartSpec.metadataService(host)).as(host).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2130706433", // 127.0.0.1
        "0x7f.1",
        "169.254.1.2.3",
        "0xa9fea9fe1",
        "4294967296",
        "0x",
        "08.1.2.3",
        "charts.0xa9fea9fe",
      })
  void otherNumericFormsAreNot(String host) {
    assertThat(ChartSpec.metadataService(host)).as(host).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://charts.example.com/",
        "https://10.0.0.1/",
        "https://127.0.0.1:5000/",
        "https://[::1]/",
        "https://[fd00:ec2::253]/",
        "https://100.100.100.201/",
        "https://[2001:db8::1]/",
      })
  void otherHostsAreNot(String url) {
    assertThat(ChartSpec.metadataService(URI.create(url).getHost())).as(url).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://localhost/",
        "https://LOCALHOST:8080/",
        "https://localhost./",
        "https://charts.localhost/",
        "oci://127.0.0.1:5000/charts",
        "https://127.1.2.3/",
        "https://[::1]:9090/",
        "https://[0:0:0:0:0:0:0:1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::1%25lo]/",
        "https://0.0.0.0:8080/",
        "https://[::]/",
        "https://[::ffff:0.0.0.0]/",
      })
  void aLoopbackOrThisHostOrLocalhostIsTheControllersOwnMachine(String url) {
    assertThat(ChartSpec.ownMachine(URI.create(url).getHost())).as(url).isTrue();
  }

  /** The forms a C resolver's {@code inet_aton} reads as 127.0.0.1 or 0.0.0.0. */
  @ParameterizedTest
  @ValueSource(strings = {"2130706433", "0x7f000001", "0x7f.1", "017700000001", "127.1", "0"})
  void everyFormACResolverReadsAsLoopbackIsTheControllersOwnMachine(String host) {
    assertThat(ChartSpec.ownMachine(host)).as(host).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://charts.example.com/",
        "https://localhost.example.com/",
        "https://mylocalhost/",
        "https://10.0.0.1/",
        "https://128.0.0.1/",
        "https://[::2]/",
        "https://[fd00::1]/",
      })
  void otherHostsAreNotItsOwnMachine(String url) {
    assertThat(ChartSpec.ownMachine(URI.create(url).getHost())).as(url).isFalse();
  }
}
