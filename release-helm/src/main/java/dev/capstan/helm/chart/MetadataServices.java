package dev.capstan.helm.chart;

import java.net.InetAddress;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The addresses at which clouds answer their metadata services, which hand a machine's or a pod's
 * credentials to whoever asks: where no chart source may lead the process that fetches charts. They
 * are every link-local address ({@code 169.254.0.0/16}, {@code fe80::/10}: AWS, Azure, GCP, Oracle
 * Cloud and others answer at {@code 169.254.169.254}), AWS's IPv6 endpoint {@code fd00:ec2::254}
 * and Alibaba Cloud's {@code 100.100.100.200}. The controller refuses a chart repository that names
 * one literally; Helm's fetches reach none through {@link EgressProxy}, whatever name leads there.
 */
public final class MetadataServices {
  /** {@code fd00:ec2::254}. */
  private static final byte[] AWS_V6 = {
    (byte) 0xfd, 0, 0x0e, (byte) 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54
  };

  /** {@code 100.100.100.200}. */
  private static final byte[] ALIBABA = {100, 100, 100, (byte) 200};

  private MetadataServices() {}

  /**
   * Why {@code address} is a metadata service's, in a few words, or {@code null} when it is none.
   * An IPv4-mapped IPv6 address is the IPv4 address it maps ({@link InetAddress} reads it so).
   */
  public static @Nullable String at(InetAddress address) {
    if (address.isLinkLocalAddress()) {
      return "link-local, where a cloud's metadata service answers";
    }
    if (Arrays.equals(address.getAddress(), AWS_V6)) {
      return "AWS's metadata service";
    }
    if (Arrays.equals(address.getAddress(), ALIBABA)) {
      return "Alibaba Cloud's metadata service";
    }
    return null;
  }
}
