package dev.capstan.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The versioned schema: the migrations shipped under {@code db/capstan/}, and the {@code
 * capstan_schema_version} table that records which of them ran.
 */
final class Schema {
  /** One migration: its version, what it does, and its SQL resource. */
  record Migration(int version, String description, String resource) {}

  static final List<Migration> MIGRATIONS =
      List.of(
          new Migration(1, "records and lease", "db/capstan/V1__records_and_lease.sql"),
          new Migration(2, "lease version", "db/capstan/V2__lease_version.sql"),
          new Migration(3, "lease intent", "db/capstan/V3__lease_intent.sql"));

  static final int LATEST = MIGRATIONS.get(MIGRATIONS.size() - 1).version();

  private static final String VERSION_TABLE =
      "CREATE TABLE IF NOT EXISTS capstan_schema_version ("
          + " version INTEGER NOT NULL PRIMARY KEY,"
          + " description VARCHAR(200) NOT NULL,"
          + " installed_at TIMESTAMP WITH TIME ZONE NOT NULL)";

  private Schema() {}

  /** The highest installed version, 0 when there is none (or no version table). */
  static int installed(Connection c) throws SQLException {
    if (!hasVersionTable(c)) {
      return 0;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT MAX(version) FROM capstan_schema_version")) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }

  private static boolean hasVersionTable(Connection c) throws SQLException {
    for (String name : List.of("capstan_schema_version", "CAPSTAN_SCHEMA_VERSION")) {
      try (ResultSet rs = c.getMetaData().getTables(null, null, name, new String[] {"TABLE"})) {
        if (rs.next()) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Runs every migration above the installed version, each in its own transaction that first claims
   * its version row, so that of two processes migrating at once one waits or fails on the primary
   * key and then finds the work done.
   *
   * @return the versions this call installed
   */
  static List<Integer> migrate(Connection c, Instant now) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    List<Integer> installed = new ArrayList<>();
    try {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute(VERSION_TABLE);
      } catch (SQLException e) {
        // two concurrent CREATE TABLE IF NOT EXISTS: PostgreSQL fails the loser with 42710 or
        // 23505 on its catalog; the table is there, made by the winner
        if (!hasVersionTable(c)) {
          throw e;
        }
      }
      c.setAutoCommit(false);
      for (Migration m : MIGRATIONS) {
        if (m.version() <= installed(c)) {
          c.commit();
          continue;
        }
        try (PreparedStatement claim =
            c.prepareStatement(
                "INSERT INTO capstan_schema_version (version, description, installed_at)"
                    + " VALUES (?, ?, ?)")) {
          claim.setInt(1, m.version());
          claim.setString(2, m.description());
          claim.setObject(3, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
          claim.executeUpdate();
        } catch (SQLException e) {
          c.rollback();
          if (Sql.isDuplicate(e)) {
            continue; // another process installed it meanwhile
          }
          throw e;
        }
        try (Statement s = c.createStatement()) {
          for (String statement : statements(read(m.resource()))) {
            s.execute(statement);
          }
          c.commit();
          installed.add(m.version());
        } catch (SQLException e) {
          c.rollback();
          throw e;
        }
      }
      return installed;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * A resource of this module, e.g. {@code db/capstan/V1__records.sql}: read through this class, so
   * it is found on the module path too, where a class loader finds no resource of a folder the
   * module does not open.
   */
  static String read(String resource) {
    try (InputStream in = Schema.class.getResourceAsStream("/" + resource)) {
      if (in == null) {
        throw new IllegalStateException("schema resource missing from the classpath: " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read schema resource " + resource, e);
    }
  }

  /** The statements of a script: {@code --} comment lines dropped, split at {@code ;}. */
  static List<String> statements(String script) {
    StringBuilder sql = new StringBuilder();
    for (String line : script.split("\n", -1)) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (String statement : sql.toString().split(";", -1)) {
      if (!statement.isBlank()) {
        out.add(statement.strip());
      }
    }
    return out;
  }
}
