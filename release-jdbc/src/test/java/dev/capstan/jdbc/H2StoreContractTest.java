package dev.capstan.jdbc;

import dev.capstan.release.port.Store;
import dev.capstan.store.tck.StoreContract;
import org.junit.jupiter.api.BeforeAll;

/**
 * The JDBC store keeps the contract on the embedded H2 database, one in-memory database per run.
 */
class H2StoreContractTest extends StoreContract {
  private static final DriverDataSource H2 =
      new DriverDataSource("jdbc:h2:mem:contract;DB_CLOSE_DELAY=-1", "sa", "");

  @BeforeAll
  static void installSchema() {
    JdbcStore.create(H2).migrate();
  }

  @Override
  protected Store newStore() {
    return JdbcStore.create(H2);
  }
}
