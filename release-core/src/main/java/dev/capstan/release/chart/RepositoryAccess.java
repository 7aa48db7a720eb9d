package dev.capstan.release.chart;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.Escapes;
import org.jspecify.annotations.Nullable;

/**
 * How to reach a chart repository or an OCI registry: credentials, TLS, and whether the fetch may
 * reach private addresses. The renderer hands the credentials to Helm in a file only it can read,
 * never on a command line (where any user of the machine would see them); {@link #toString()} never
 * shows the password.
 *
 * @param username the user, or {@code null} for none
 * @param password the password, or {@code null} for none
 * @param caFile a CA bundle (PEM) to trust for the repository's TLS, or {@code null} for the
 *     system's
 * @param plainHttp reach an OCI registry over plain HTTP (a registry on loopback); not for a chart
 *     repository, whose URL says its scheme
 * @param privateNetworks whether the fetch (the repository, its index's chart URLs, redirects, a
 *     registry's blob locations) may reach private addresses
 */
public record RepositoryAccess(
    @Nullable String username,
    @Nullable String password,
    @Nullable String caFile,
    boolean plainHttp,
    PrivateNetworks privateNetworks) {
  private static final RepositoryAccess ANONYMOUS =
      new RepositoryAccess(null, null, null, false, PrivateNetworks.reachable());

  /** A password needs a user. */
  public RepositoryAccess {
    requireNonNull(privateNetworks, "privateNetworks");
    if (password != null && (username == null || username.isEmpty())) {
      throw new IllegalArgumentException("a repository password needs a user (--username)");
    }
    if (username != null && username.contains(":")) {
      throw new IllegalArgumentException(
          "--username must not hold ':' (it separates user and password in Basic"
              + " authentication): "
              + Escapes.quote(username));
    }
  }

  /** No credentials, the system's CA, TLS, private addresses reachable. */
  public static RepositoryAccess anonymous() {
    return ANONYMOUS;
  }

  /** A copy with {@code username} and {@code password}. */
  public RepositoryAccess withCredentials(String username, String password) {
    return new RepositoryAccess(username, password, caFile, plainHttp, privateNetworks);
  }

  /** A copy that trusts the CA bundle {@code caFile}. */
  public RepositoryAccess withCaFile(@Nullable String caFile) {
    return new RepositoryAccess(username, password, caFile, plainHttp, privateNetworks);
  }

  /** A copy that reaches an OCI registry over plain HTTP. */
  public RepositoryAccess withPlainHttp(boolean plainHttp) {
    return new RepositoryAccess(username, password, caFile, plainHttp, privateNetworks);
  }

  /**
   * A copy whose fetch reaches private addresses as {@code privateNetworks} says: for a renderer
   * serving tenants, {@link PrivateNetworks#onlyAt(java.util.List)}.
   */
  public RepositoryAccess withPrivateNetworks(PrivateNetworks privateNetworks) {
    return new RepositoryAccess(username, password, caFile, plainHttp, privateNetworks);
  }

  /** The user and the CA file, never the password. */
  @Override
  public String toString() {
    return "RepositoryAccess["
        + (username == null ? "anonymous" : "user " + Escapes.escape(username))
        + (password == null ? "" : ", password (hidden)")
        + (caFile == null ? "" : ", CA " + Escapes.escape(caFile))
        + (plainHttp ? ", plain HTTP" : "")
        + (privateNetworks.refused()
            ? ", private addresses refused but at " + privateNetworks.trustedHostsAndPorts()
            : "")
        + "]";
  }
}
