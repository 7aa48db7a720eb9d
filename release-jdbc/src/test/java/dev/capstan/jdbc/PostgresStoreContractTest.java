package dev.capstan.jdbc;

import dev.capstan.release.port.Store;
import dev.capstan.store.tck.StoreContract;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The JDBC store keeps the contract on a real PostgreSQL server on loopback. */
@ExtendWith(PostgresExtension.class)
class PostgresStoreContractTest extends StoreContract {
  private static @Nullable DriverDataSource postgres;

  @BeforeAll
  static void installSchema(PostgresServer server) {
    postgres = server.dataSource();
    JdbcStore.create(postgres).migrate();
  }

  @Override
  protected Store newStore() {
    if (postgres == null) {
      throw new IllegalStateException("the server starts before all tests");
    }
    return JdbcStore.create(postgres);
  }
}
