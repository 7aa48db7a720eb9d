package dev.capstan.release.chart;

import dev.capstan.common.Escapes;
import org.jspecify.annotations.Nullable;

/**
 * How to reach a chart repository or an OCI registry: credentials and TLS. The renderer hands the
 * credentials to Helm in a file only it can read, never on a command line (where any user of the
 * machine would see them); {@link #toString()} never shows the password.
 *
 * @param username the user, or {@code null} for none
 * @param password the password, or {@code null} for none
 * @param caFile a CA bundle (PEM) to trust for the repository's TLS, or {@code null} for the
 *     system's
 * @param plainHttp reach an OCI registry over plain HTTP (a registry on loopback); not for a chart
 *     repository, whose URL says its scheme
 */
public record RepositoryAccess(
    @Nullable String username,
    @Nullable String password,
    @Nullable String caFile,
    boolean plainHttp) {
  private static final RepositoryAccess ANONYMOUS = new RepositoryAccess(null, null, null, false);

  /** A password needs a user. */
  public RepositoryAccess {
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

  /** No credentials, the system's CA, TLS. */
  public static RepositoryAccess anonymous() {
    return ANONYMOUS;
  }

  /** A copy with {@code username} and {@code password}. */
  public RepositoryAccess withCredentials(String username, String password) {
    return new RepositoryAccess(username, password, caFile, plainHttp);
  }

  /** A copy that trusts the CA bundle {@code caFile}. */
  public RepositoryAccess withCaFile(@Nullable String caFile) {
    return new RepositoryAccess(username, password, caFile, plainHttp);
  }

  /** A copy that reaches an OCI registry over plain HTTP. */
  public RepositoryAccess withPlainHttp(boolean plainHttp) {
    return new RepositoryAccess(username, password, caFile, plainHttp);
  }

  /** The user and the CA file, never the password. */
  @Override
  public String toString() {
    return "RepositoryAccess["
        + (username == null ? "anonymous" : "user " + Escapes.escape(username))
        + (password == null ? "" : ", password (hidden)")
        + (caFile == null ? "" : ", CA " + Escapes.escape(caFile))
        + (plainHttp ? ", plain HTTP" : "")
        + "]";
  }
}
