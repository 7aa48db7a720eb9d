package dev.capstan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The schema on a fresh PostgreSQL database: nothing until asked, then installed exactly once. */
@ExtendWith(PostgresExtension.class)
class PostgresMigrateTest {
  private static final int MIGRATORS = 4;
  private static final int ROUNDS = 10;

  private static DriverDataSource freshDatabase(PostgresServer postgres, String name)
      throws SQLException {
    try (Connection c = postgres.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return new DriverDataSource(postgres.url().replace("/capstan", "/" + name), "capstan", "");
  }

  @Test
  void storeOnAnEmptyDatabaseNamesTheMissingSchema(PostgresServer postgres) throws SQLException {
    JdbcStore store = JdbcStore.create(freshDatabase(postgres, "empty_schema"));

    assertThat(store.schemaVersion()).isZero();
    assertThatThrownBy(() -> store.records("prod", "app"))
        .isInstanceOf(ClusterException.class)
        .hasMessageStartingWith(
            "read release record prod/app failed: ERROR: relation \"capstan_release_record\" does"
                + " not exist")
        .hasMessageEndingWith(
            "(SQLState 42P01); the Capstan schema is not installed in this database: call"
                + " JdbcStore.migrate() once");
  }

  @Test
  void concurrentMigrationsInstallTheSchemaExactlyOnce(PostgresServer postgres) throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      migrateConcurrently(freshDatabase(postgres, "migrate_race_" + round));
    }
  }

  private static void migrateConcurrently(DriverDataSource db) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(MIGRATORS);
    List<Integer> installed = new ArrayList<>();
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<Integer>>> runs = new ArrayList<>();
      for (int i = 0; i < MIGRATORS; i++) {
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  return JdbcStore.create(db).migrate();
                }));
      }
      start.countDown();
      for (Future<List<Integer>> run : runs) {
        installed.addAll(run.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(installed).containsExactlyInAnyOrder(1, 2, 3);
    assertThat(JdbcStore.create(db).schemaVersion()).isEqualTo(3);
    assertThat(JdbcStore.create(db).latestRecords("prod")).isEmpty();
  }
}
