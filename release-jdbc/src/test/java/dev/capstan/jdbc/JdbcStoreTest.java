package dev.capstan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.common.ClusterException;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The JDBC store's own behaviour on H2: the schema on request, the queryable columns. */
class JdbcStoreTest {
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final DriverDataSource db =
      new DriverDataSource(
          "jdbc:h2:mem:store-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1", "sa", "");
  private final JdbcStore store = JdbcStore.create(db);

  private static Release release(int revision, ReleaseStatus status) {
    return new Release(
        "id-app",
        "prod",
        "app",
        revision,
        status,
        List.of(),
        List.of(),
        List.of(),
        null,
        "2.0." + revision,
        null,
        Payloads.of(ConfigMapSpec.of("prod", "settings", Map.of("a", "1"))),
        null,
        T0,
        T0.plusSeconds(revision),
        null);
  }

  private List<String> rows(String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          row.add(String.valueOf(rs.getObject(i)));
        }
        rows.add(String.join("|", row));
      }
    }
    return rows;
  }

  @Test
  void storeTouchesNoSchemaUntilAskedAndSaysHowToInstallIt() {
    assertThat(store.schemaVersion()).isZero();

    assertThatThrownBy(() -> store.latestRecord("prod", "app"))
        .isInstanceOf(ClusterException.class)
        .hasMessageStartingWith("read release record prod/app failed: ")
        .hasMessageEndingWith(
            "; the Capstan schema is not installed in this database: call JdbcStore.migrate()"
                + " once");
    assertThat(store.schemaVersion()).isZero();
  }

  @Test
  void migrateInstallsEveryVersionOnceAndRecordsIt() throws SQLException {
    assertThat(store.migrate()).containsExactly(1, 2, 3);
    assertThat(store.migrate()).isEmpty();

    assertThat(store.schemaVersion()).isEqualTo(JdbcStore.SCHEMA_VERSION).isEqualTo(3);
    assertThat(rows("SELECT version, description FROM capstan_schema_version ORDER BY version"))
        .containsExactly("1|records and lease", "2|lease version", "3|lease intent");
  }

  @Test
  void aDatabaseAtVersionOneIsMigratedWithItsLeaseRowsKept() throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      installScripts(s, "db/capstan/V1__records_and_lease.sql");
      s.execute(
          "INSERT INTO capstan_schema_version VALUES (1, 'records and lease', TIMESTAMP WITH"
              + " TIME ZONE '2026-01-01 00:00:00+00')");
      s.execute(
          "INSERT INTO capstan_release_lease VALUES ('prod', 'app', 'old-caster', TIMESTAMP WITH"
              + " TIME ZONE '2026-01-01 00:00:00+00', TIMESTAMP WITH TIME ZONE '2026-01-01"
              + " 00:00:30+00')");
    }

    // this build renews on the lease's version, a column version 1 lacks: the error says so
    assertLeaseRefusedAsOlderSchema();

    assertThat(store.migrate()).containsExactly(2, 3);

    assertThat(rows("SELECT holder, lease_version, intent FROM capstan_release_lease"))
        .containsExactly("old-caster|0|null");
    LeaseGrant taken =
        store.acquireLease("prod", "app", "alice", T0.plusSeconds(30), Duration.ofSeconds(30));
    assertThat(taken.takenOver()).isNotNull();
    assertThat(taken.takenOverIntent()).isNull();
    assertThat(taken.version()).isEqualTo("1");
  }

  @Test
  void aDatabaseAtVersionTwoIsMigratedWithItsLeaseRowsKept() throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      installScripts(s, "db/capstan/V1__records_and_lease.sql", "db/capstan/V2__lease_version.sql");
      s.execute(
          "INSERT INTO capstan_schema_version VALUES (1, 'records and lease', TIMESTAMP WITH"
              + " TIME ZONE '2026-01-01 00:00:00+00'), (2, 'lease version', TIMESTAMP WITH TIME"
              + " ZONE '2026-01-01 00:00:00+00')");
      s.execute(
          "INSERT INTO capstan_release_lease VALUES ('prod', 'app', 'old-caster', TIMESTAMP WITH"
              + " TIME ZONE '2026-01-01 00:00:00+00', TIMESTAMP WITH TIME ZONE '2026-01-01"
              + " 00:00:30+00', 7)");
    }

    // this build keeps the lease's intent, a column version 2 lacks: the error says so
    assertLeaseRefusedAsOlderSchema();

    assertThat(store.migrate()).containsExactly(3);

    assertThat(rows("SELECT holder, lease_version, intent FROM capstan_release_lease"))
        .containsExactly("old-caster|7|null");
    LeaseGrant taken =
        store.acquireLease(
            "prod", "app", "alice", "cast 2", T0.plusSeconds(30), Duration.ofSeconds(30));
    assertThat(taken.takenOver()).isNotNull();
    assertThat(taken.takenOver().holder()).isEqualTo("old-caster");
    assertThat(taken.takenOverIntent()).isNull();
    assertThat(taken.version()).isEqualTo("8");
    assertThat(rows("SELECT holder, lease_version, intent FROM capstan_release_lease"))
        .containsExactly("alice|8|cast 2");
  }

  @Test
  void recordRowsCarryQueryableColumnsAndTheCodecBytes() throws SQLException {
    store.migrate();
    StoredRelease created = store.createRecord(release(1, ReleaseStatus.PENDING));
    StoredRelease deployed =
        store.updateRecord(
            created.release().withStatus(ReleaseStatus.DEPLOYED, T0.plusSeconds(90)),
            created.version());

    assertThat(List.of(created.version(), deployed.version())).containsExactly("1", "2");
    assertThat(
            rows(
                "SELECT namespace, name, revision, status, version, row_version,"
                    + " created_at = TIMESTAMP WITH TIME ZONE '2026-01-01 00:00:00+00',"
                    + " updated_at = TIMESTAMP WITH TIME ZONE '2026-01-01 00:01:30+00'"
                    + " FROM capstan_release_record"))
        .containsExactly("prod|app|1|deployed|2.0.1|2|true|true");
    byte[] bytes;
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT record FROM capstan_release_record")) {
      assertThat(rs.next()).isTrue();
      bytes = rs.getBytes(1);
    }
    assertThat(ReleaseRecordCodec.decode(bytes)).isEqualTo(deployed.release());
  }

  @Test
  void versionTokenThatThisStoreNeverIssuedIsStale() {
    store.migrate();
    store.createRecord(release(1, ReleaseStatus.PENDING));

    assertThatThrownBy(() -> store.updateRecord(release(1, ReleaseStatus.DEPLOYED), "12abc"))
        .isInstanceOf(StaleRecordException.class)
        .hasMessage(
            "release prod/app revision 1 was changed concurrently: expected version 12abc, which"
                + " is no row_version of this store");
  }

  @Test
  void leaseRowKeepsHolderAndTimesAndIsReleasedToNull() throws SQLException {
    store.migrate();
    store.acquireLease("prod", "app", "alice", T0.plusNanos(1_234_567), Duration.ofSeconds(30));

    assertThat(
            rows(
                "SELECT holder, acquired_at = TIMESTAMP WITH TIME ZONE '2026-01-01"
                    + " 00:00:00.001234+00', expires_at = TIMESTAMP WITH TIME ZONE '2026-01-01"
                    + " 00:00:30.001234+00' FROM capstan_release_lease"))
        .containsExactly("alice|true|true");
    LeaseGrant grant =
        store.acquireLease("prod", "app", "alice", T0.plusSeconds(1), Duration.ofSeconds(30));
    String renewed =
        store.renewLease(
            "prod", "app", "alice", grant.version(), T0.plusSeconds(2), Duration.ofSeconds(30));
    // every write of the row moves its version by one: the renewal's token is the next version
    assertThat(Long.parseLong(renewed)).isEqualTo(Long.parseLong(grant.version()) + 1);
    assertThat(rows("SELECT lease_version FROM capstan_release_lease")).containsExactly(renewed);
    store.releaseLease("prod", "app", "alice", false);
    assertThat(rows("SELECT holder, lease_version FROM capstan_release_lease"))
        .containsExactly("null|" + (Long.parseLong(renewed) + 1));
    store.releaseLease("prod", "app", "alice", true);
    assertThat(rows("SELECT holder FROM capstan_release_lease")).isEmpty();
  }

  @Test
  void leaseRowKeepsTheIntentThroughRenewalsUntilReleased() throws SQLException {
    store.migrate();
    Duration ttl = Duration.ofSeconds(30);
    LeaseGrant grant = store.acquireLease("prod", "app", "alice", "cast 2", T0, ttl);
    assertThat(rows("SELECT holder, intent FROM capstan_release_lease"))
        .containsExactly("alice|cast 2");

    store.renewLease("prod", "app", "alice", grant.version(), T0.plusSeconds(10), ttl);
    assertThat(rows("SELECT holder, intent FROM capstan_release_lease"))
        .containsExactly("alice|cast 2");
    store.acquireLease("prod", "app", "alice", T0.plusSeconds(20), ttl);
    assertThat(rows("SELECT holder, intent FROM capstan_release_lease"))
        .containsExactly("alice|null");
    store.acquireLease("prod", "app", "alice", "cast 3", T0.plusSeconds(21), ttl);
    store.releaseLease("prod", "app", "alice", false);
    assertThat(rows("SELECT holder, intent FROM capstan_release_lease"))
        .containsExactly("null|null");
  }

  @Test
  void anIntentLongerThanTheMostAStoreKeepsIsRefusedWithoutAWrite() throws SQLException {
    store.migrate();
    String intent = "x".repeat(Store.MAX_LEASE_INTENT + 1);

    assertThatThrownBy(
            () -> store.acquireLease("prod", "app", "alice", intent, T0, Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a lease intent has at most 65536 characters; this one has 65537");
    assertThat(rows("SELECT holder FROM capstan_release_lease")).isEmpty();
  }

  @Test
  void schemaScriptsSplitIntoStatementsWithoutComments() {
    assertThat(
            Schema.statements("-- a; comment\nCREATE TABLE a (x INT);\n\n  -- b\nDROP TABLE a;\n"))
        .containsExactly("CREATE TABLE a (x INT)", "DROP TABLE a");
  }

  @Test
  void recordEntriesComeFromTheColumnsAndDecodeOnlyTheRecordAskedFor() throws SQLException {
    store.migrate();
    store.createRecord(release(1, ReleaseStatus.SUPERSEDED));
    StoredRelease latest = store.createRecord(release(2, ReleaseStatus.DEPLOYED));
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE capstan_release_record SET record = X'00' WHERE revision = 1");
    }

    List<RecordEntry> entries = store.recordEntries("prod", "app");

    assertThat(entries)
        .extracting(RecordEntry::revision, RecordEntry::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2, ReleaseStatus.DEPLOYED),
            org.assertj.core.groups.Tuple.tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(entries.get(0).stored()).isEqualTo(latest);
    assertThatThrownBy(() -> entries.get(1).stored()).isInstanceOf(RecordFormatException.class);
    // records decodes every revision, the damaged one too
    assertThatThrownBy(() -> store.records("prod", "app"))
        .isInstanceOf(RecordFormatException.class);
  }

  @Test
  void theLatestEntriesOfANamespaceDecodeEachAloneSoADamagedRowFailsOnlyItsRelease()
      throws SQLException {
    store.migrate();
    store.createRecord(release(1, ReleaseStatus.SUPERSEDED));
    StoredRelease latest = store.createRecord(release(2, ReleaseStatus.DEPLOYED));
    Release other = release(1, ReleaseStatus.DEPLOYED);
    store.createRecord(
        new Release(
            "id-db",
            "prod",
            "db",
            1,
            ReleaseStatus.DEPLOYED,
            List.of(),
            List.of(),
            List.of(),
            null,
            null,
            null,
            other.payloads(),
            null,
            T0,
            T0,
            null));
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE capstan_release_record SET record = X'00' WHERE name = 'db'");
    }

    var entries = store.latestEntries("prod");

    assertThat(entries.keySet()).containsExactly("app", "db");
    RecordEntry app = java.util.Objects.requireNonNull(entries.get("app"));
    RecordEntry damaged = java.util.Objects.requireNonNull(entries.get("db"));
    assertThat(app.stored()).isEqualTo(latest);
    assertThat(damaged.revision()).isEqualTo(1);
    assertThatThrownBy(damaged::stored).isInstanceOf(RecordFormatException.class);
    // the statement the advice names deletes exactly that record
    String removal = store.recordRemoval("prod", "db", 1);
    assertThat(removal)
        .isEqualTo(
            "DELETE FROM capstan_release_record WHERE namespace = 'prod' AND name = 'db' AND"
                + " revision = 1");
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      assertThat(s.executeUpdate(removal)).isEqualTo(1);
    }
    assertThat(store.latestEntries("prod").keySet()).containsExactly("app");
  }

  /** Creates the version table and runs {@code scripts}, as an older build's migrate() did. */
  private static void installScripts(Statement s, String... scripts) throws SQLException {
    s.execute(
        "CREATE TABLE capstan_schema_version (version INTEGER NOT NULL PRIMARY KEY,"
            + " description VARCHAR(200) NOT NULL, installed_at TIMESTAMP WITH TIME ZONE NOT"
            + " NULL)");
    for (String script : scripts) {
      for (String statement : Schema.statements(Schema.read(script))) {
        s.execute(statement);
      }
    }
  }

  /** Taking a lease on a database older than this build is refused, naming migrate(). */
  private void assertLeaseRefusedAsOlderSchema() {
    assertThatThrownBy(
            () ->
                store.acquireLease(
                    "prod", "app", "alice", T0.plusSeconds(30), Duration.ofSeconds(30)))
        .isInstanceOf(ClusterException.class)
        .hasMessageStartingWith("acquire release lease prod/app failed: ")
        .hasMessageEndingWith(
            "; the Capstan schema in this database is older than this build's (version 3): call"
                + " JdbcStore.migrate() to upgrade it");
  }
}
