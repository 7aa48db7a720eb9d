package dev.capstan.jdbc;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/** A {@link DataSource} that opens a new connection per call through {@link DriverManager}. */
public final class DriverDataSource implements DataSource {
  private final String url;
  private final String user;
  private final String password;

  DriverDataSource(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return DriverManager.getConnection(url, user, password);
  }

  @Override
  public Connection getConnection(String username, String pw) throws SQLException {
    return DriverManager.getConnection(url, username, pw);
  }

  @Override
  public PrintWriter getLogWriter() {
    return new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {
    DriverManager.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() {
    return DriverManager.getLoginTimeout();
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
