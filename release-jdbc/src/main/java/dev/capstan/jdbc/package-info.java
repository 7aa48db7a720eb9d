/**
 * Release records and the operation lease in a SQL database: {@link dev.capstan.jdbc.JdbcStore}
 * implements release-core's {@code Store} over a {@link javax.sql.DataSource}. PostgreSQL is
 * first-class; H2 is the embedded option. The schema ships as versioned SQL resources under {@code
 * db/capstan/} and is installed only by {@link dev.capstan.jdbc.JdbcStore#migrate()}.
 */
@NullMarked
package dev.capstan.jdbc;

import org.jspecify.annotations.NullMarked;
