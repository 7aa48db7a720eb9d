package dev.capstan.helm.chart;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The addresses of a machine's own and private networks, which {@link EgressProxy} refuses when the
 * request's {@link dev.capstan.release.chart.PrivateNetworks} says so: this host ({@code
 * 0.0.0.0/8}, {@code ::}), loopback ({@code 127.0.0.0/8}, {@code ::1}), the private IPv4 ranges
 * ({@code 10.0.0.0/8}, {@code 172.16.0.0/12}, {@code 192.168.0.0/16}), carrier-grade NAT ({@code
 * 100.64.0.0/10}, where some clusters put pods), link-local ({@code 169.254.0.0/16}, {@code
 * fe80::/10}), unique local ({@code fc00::/7}) and site-local ({@code fec0::/10}) IPv6; and an IPv6
 * address that carries one of those IPv4 addresses (IPv4-compatible {@code ::a.b.c.d}, NAT64 {@code
 * 64:ff9b::/96}). An IPv4-mapped address ({@code ::ffff:a.b.c.d}) is the IPv4 address it maps
 * ({@link InetAddress} reads it so). A pure function of the address: no name is looked up.
 */
final class PrivateAddresses {
  /** {@code 64:ff9b::/96}'s first 12 bytes. */
  private static final byte[] NAT64 = {0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};

  private PrivateAddresses() {}

  /**
   * Which of those networks {@code address} is in, in a few words with the range ({@code private,
   * 10.0.0.0/8}), or {@code null} when it is in none.
   */
  static @Nullable String at(InetAddress address) {
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      return v4(b[0] & 0xff, b[1] & 0xff);
    }
    if (address.isAnyLocalAddress()) {
      return "this host, ::";
    }
    if (address.isLoopbackAddress()) {
      return "loopback, ::1";
    }
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    if ((first & 0xfe) == 0xfc) {
      return "unique local, fc00::/7";
    }
    if (first == 0xfe && (second & 0xc0) == 0x80) {
      return "link-local, fe80::/10";
    }
    if (first == 0xfe && (second & 0xc0) == 0xc0) {
      return "site-local, fec0::/10";
    }
    boolean compatible = Arrays.equals(Arrays.copyOf(b, 12), new byte[12]);
    if (compatible || Arrays.equals(Arrays.copyOf(b, 12), NAT64)) {
      String carried = v4(b[12] & 0xff, b[13] & 0xff);
      if (carried != null) {
        return carried + ", carried in " + (compatible ? "::/96" : "64:ff9b::/96");
      }
    }
    return null;
  }

  private static @Nullable String v4(int first, int second) {
    if (first == 0) {
      return "this host, 0.0.0.0/8";
    }
    if (first == 127) {
      return "loopback, 127.0.0.0/8";
    }
    if (first == 10) {
      return "private, 10.0.0.0/8";
    }
    if (first == 172 && (second & 0xf0) == 16) {
      return "private, 172.16.0.0/12";
    }
    if (first == 192 && second == 168) {
      return "private, 192.168.0.0/16";
    }
    if (first == 100 && (second & 0xc0) == 64) {
      return "carrier-grade NAT, 100.64.0.0/10";
    }
    if (first == 169 && second == 254) {
      return "link-local, 169.254.0.0/16";
    }
    return null;
  }

  /** {@code host} as an address key: an IP literal in its canonical form, a name in lower case. */
  static String canonical(String host) {
    String lower = host.toLowerCase(java.util.Locale.ROOT);
    if (lower.contains(":") && lower.matches("[0-9a-f:.]+")) {
      try {
        return InetAddress.getByName(lower).getHostAddress(); // a literal: nothing is looked up
      } catch (UnknownHostException e) {
        return lower;
      }
    }
    return lower;
  }
}
