package dev.capstan.jdbc;

import dev.capstan.common.ClusterException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/** SQL helpers: time conversion and the one translation of {@link SQLException}. */
final class Sql {
  private Sql() {}

  /** Whether {@code e} is an integrity violation: SQLState class 23 (a duplicate key here). */
  static boolean isDuplicate(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLIntegrityConstraintViolationException
        || (state != null && state.startsWith("23"));
  }

  /** {@code instant} to microseconds, the precision of PostgreSQL's timestamps. */
  static Instant micros(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MICROS);
  }

  static OffsetDateTime time(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  static Instant instant(@Nullable OffsetDateTime time, String column) throws SQLException {
    if (time == null) {
      throw new SQLException("column " + column + " is null", "22004");
    }
    return time.toInstant();
  }

  /**
   * The store's error for a failed statement, with a hint when the schema is not installed or is of
   * an older version.
   */
  static ClusterException failure(
      String operation, String kind, String namespace, @Nullable String name, SQLException e) {
    String state = e.getSQLState();
    String detail = e.getMessage() + " (SQLState " + state + ")";
    if ("42P01".equals(state) || "42S02".equals(state) || "42S04".equals(state)) {
      detail +=
          "; the Capstan schema is not installed in this database: call JdbcStore.migrate() once";
    } else if ("42703".equals(state) || "42S22".equals(state)) {
      // a column of a later schema version (PostgreSQL undefined_column, H2 column not found)
      detail +=
          "; the Capstan schema in this database is older than this build's (version "
              + Schema.LATEST
              + "): call JdbcStore.migrate() to upgrade it";
    }
    return new ClusterException(operation, kind, namespace, name, 0, detail, e);
  }
}
