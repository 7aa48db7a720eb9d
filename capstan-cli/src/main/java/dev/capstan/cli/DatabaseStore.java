package dev.capstan.cli;

import dev.capstan.common.Escapes;
import dev.capstan.jdbc.JdbcStore;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The {@link JdbcStore} that {@code --store URL} names. Everything that cannot work is refused
 * before the first write, in this order: a value that is no JDBC URL, a URL no driver on the class
 * path accepts, then (after the kubeconfig is read) a database without the Capstan schema, or with
 * another version of it; the schema is installed or upgraded only with {@code --store-migrate}.
 * Passwords in the URL ({@code password=...}, {@code //user:password@}) are never echoed.
 */
final class DatabaseStore {
  private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)(password=)[^&;]*");
  private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]*:)[^/@]*@");
  private static final String POSTGRES = "jdbc:postgresql://HOST[:PORT]/DATABASE";

  private DatabaseStore() {}

  /** {@code url} with every password in it replaced by {@code ***}, and escaped. */
  static String redact(String url) {
    String hidden = PASSWORD_PARAM.matcher(url).replaceAll("$1***");
    return Escapes.escape(USER_INFO.matcher(hidden).replaceAll("$1***@"));
  }

  /**
   * Refuses a value that is no JDBC URL, or that no JDBC driver on the class path accepts; touches
   * no database.
   */
  static void checkUrl(String url) {
    int driverEnd = url.startsWith("jdbc:") ? url.indexOf(':', 5) : -1;
    if (driverEnd <= 5 || driverEnd == url.length() - 1) {
      throw new IllegalArgumentException(
          "--store must be a JDBC URL, jdbc:DRIVER:DATABASE (e.g. "
              + POSTGRES
              + "): '"
              + redact(url)
              + "'");
    }
    try {
      DriverManager.getDriver(url);
    } catch (SQLException e) {
      throw new IllegalArgumentException(
          "--store: no JDBC driver on the class path accepts '"
              + redact(url)
              + "' (drivers: "
              + drivers()
              + "); capstan ships PostgreSQL's, for "
              + POSTGRES
              + ", and a driver refuses a URL it cannot parse, such as a port that is no number");
    }
  }

  private static String drivers() {
    List<String> names = DriverManager.drivers().map(d -> d.getClass().getName()).sorted().toList();
    return names.isEmpty() ? "none" : String.join(", ", names);
  }

  /**
   * Opens the store at {@code url}, which {@link #checkUrl} accepted: with {@code migrate},
   * installs or upgrades the schema first and says so on {@code err}; otherwise refuses a database
   * whose schema is not the one this build needs.
   */
  static JdbcStore open(String url, boolean migrate, PrintStream err) {
    JdbcStore store = JdbcStore.create(new UrlDataSource(url, err));
    if (migrate) {
      List<Integer> installed = store.migrate();
      err.println(
          "capstan: "
              + (installed.isEmpty()
                  ? "the Capstan schema in " + redact(url) + " is current (version "
                  : "installed the Capstan schema in " + redact(url) + " (version ")
              + JdbcStore.SCHEMA_VERSION
              + ")");
      return store;
    }
    int version = store.schemaVersion();
    if (version == 0) {
      throw new IllegalArgumentException(
          "--store '"
              + redact(url)
              + "': the Capstan schema is not installed in this database; pass --store-migrate"
              + " once to install it (version "
              + JdbcStore.SCHEMA_VERSION
              + "), or run release-jdbc's db/capstan/ scripts with your migration tool");
    }
    if (version != JdbcStore.SCHEMA_VERSION) {
      throw new IllegalArgumentException(
          "--store '"
              + redact(url)
              + "': the Capstan schema in this database is version "
              + version
              + ", this capstan needs version "
              + JdbcStore.SCHEMA_VERSION
              + (version < JdbcStore.SCHEMA_VERSION
                  ? "; pass --store-migrate to upgrade it"
                  : "; use a newer capstan"));
    }
    return store;
  }

  /**
   * A {@link DataSource} opening one connection per call with {@link DriverManager} (a command
   * makes a handful of store calls); connection errors say which database, with passwords hidden.
   * Its log writer is the command's error stream.
   */
  private static final class UrlDataSource implements DataSource {
    private final String url;
    private final PrintStream err;

    UrlDataSource(String url, PrintStream err) {
      this.url = url;
      this.err = err;
    }

    @Override
    public Connection getConnection() throws SQLException {
      try {
        return DriverManager.getConnection(url);
      } catch (SQLException e) {
        // a new exception without the cause: a driver's message may echo the URL's password
        throw new SQLException(
            "cannot connect to " + redact(url) + ": " + redact(String.valueOf(e.getMessage())),
            e.getSQLState(),
            e.getErrorCode());
      }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      throw new SQLFeatureNotSupportedException("the user and password come with the URL");
    }

    @Override
    public PrintWriter getLogWriter() {
      return new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
    }

    @Override
    public void setLogWriter(@Nullable PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException("no java.util.logging here");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper of " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
