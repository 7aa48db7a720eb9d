/** {@code JdbcStore}: release records and the operation lease in the host's SQL database. */
module dev.capstan.jdbc {
  requires transitive dev.capstan.release;
  requires transitive java.sql;

  exports dev.capstan.jdbc;
}
