package dev.capstan.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ChartSpec#linkLocal}: every literal form of an address on the pod's link (and of a cloud's
 * metadata service) that the controller's Helm would connect to is refused, as the host {@link
 * URI#getHost} gives it.
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
      })
  void aLiteralAddressOnTheLinkOrOfAMetadataServiceIsLinkLocal(String url) {
    assertThat(ChartSpec.linkLocal(URI.create(url).getHost())).as(url).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://charts.example.com/",
        "https://10.0.0.1/",
        "https://127.0.0.1:5000/",
        "https://[::1]/",
        "https://[fd00:ec2::253]/",
        "https://[2001:db8::1]/",
      })
  void otherHostsAreNot(String url) {
    assertThat(ChartSpec.linkLocal(URI.create(url).getHost())).as(url).isFalse();
  }
}
