package dev.capstan.helm.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which addresses are a cloud's metadata service's (literals only: no name is looked up). */
class MetadataServicesTest {
  @Test
  void onlyTheMetadataServicesAddressesAreTheirs() throws Exception {
    for (String address :
        List.of("169.254.169.254", "169.254.0.1", "fe80::1", "fd00:ec2::254", "100.100.100.200")) {
      assertThat(MetadataServices.at(InetAddress.getByName(address))).as(address).isNotNull();
    }
    for (String address :
        List.of(
            "127.0.0.1", "10.0.0.1", "192.168.1.1", "100.100.100.201", "fd00:ec2::253", "::1")) {
      assertThat(MetadataServices.at(InetAddress.getByName(address))).as(address).isNull();
    }
  }
}
