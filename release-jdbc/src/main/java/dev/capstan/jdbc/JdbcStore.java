package dev.capstan.jdbc;

import static java.util.Objects.requireNonNull;

import dev.capstan.common.ClusterException;
import dev.capstan.release.codec.RecordFormatException;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.error.StaleRecordException;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.port.LeaseGrant;
import dev.capstan.release.port.RecordEntry;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Store} in a SQL database reached through a {@link DataSource}: each release revision is
 * a row of {@code capstan_release_record} holding the shared {@link ReleaseRecordCodec}'s bytes
 * beside queryable columns, and each release's operation lease a row of {@code
 * capstan_release_lease}. PostgreSQL is first-class; H2 works as the embedded option.
 *
 * <ul>
 *   <li>Compare-and-set: the version token of a {@link StoredRelease} is the row's {@code
 *       row_version}, and an update applies only {@code WHERE row_version = expected}.
 *   <li>The lease is taken under the row's lock ({@code SELECT ... FOR UPDATE}); the first {@code
 *       INSERT} of two racing holders fails on the primary key and the loser reads again, so
 *       processes on different machines serialise as they do with the Kubernetes Lease. As there,
 *       expiry is judged by the caller's clock: keep the hosts' clocks in sync. Every write of the
 *       row changes its {@code lease_version} (schema version 2), and a renewal is one {@code
 *       UPDATE ... WHERE holder = ? AND lease_version = ?} on the version of the holder's own last
 *       write, whatever the expiry. The row's {@code intent} (schema version 3) keeps the intent
 *       the holder named when it took the lease ({@link #keepsLeaseIntents()}).
 *   <li>Instants are kept to the microsecond; leases granted are truncated to it.
 * </ul>
 *
 * <p>The store never creates or changes the schema by itself: call {@link #migrate()} once (or run
 * the scripts under {@code db/capstan/} with your own migration tool). Statements against a
 * database without the schema fail with a {@link ClusterException} saying so. Thread-safe: every
 * call takes a connection from the data source and gives it back.
 */
public final class JdbcStore implements Store {
  /** The schema version this store needs, the newest under {@code db/capstan/}. */
  public static final int SCHEMA_VERSION = Schema.LATEST;

  private static final int LEASE_ATTEMPTS = 3;

  /** Where the version of a newly inserted lease row comes from. */
  private static final SecureRandom FIRST_VERSIONS = new SecureRandom();

  private static final String RECORD = "release record";
  private static final String LEASE = "release lease";
  private static final String COLUMNS = "row_version, record";

  private final DataSource dataSource;

  private JdbcStore(DataSource dataSource) {
    this.dataSource = requireNonNull(dataSource, "dataSource");
  }

  /** A store over {@code dataSource}; touches nothing until the first call. */
  public static JdbcStore create(DataSource dataSource) {
    return new JdbcStore(dataSource);
  }

  /**
   * Installs every schema migration the database lacks, each in its own transaction, and records it
   * in {@code capstan_schema_version}. Safe to call on an up-to-date database (it does nothing) and
   * from several processes at once.
   *
   * @return the versions installed by this call, oldest first; empty when the schema was current
   */
  public List<Integer> migrate() {
    try (Connection c = dataSource.getConnection()) {
      return Schema.migrate(c, Instant.now());
    } catch (SQLException e) {
      throw Sql.failure("migrate", "schema", "", null, e);
    }
  }

  /** The installed schema version: 0 for none, {@link #SCHEMA_VERSION} when current. */
  public int schemaVersion() {
    try (Connection c = dataSource.getConnection()) {
      return Schema.installed(c);
    } catch (SQLException e) {
      throw Sql.failure("read", "schema", "", null, e);
    }
  }

  // ------------------------------------------------------------------------------ records

  @Override
  public Optional<StoredRelease> latestRecord(String namespace, String name) {
    List<StoredRelease> found =
        query(
            "read",
            namespace,
            name,
            "SELECT "
                + COLUMNS
                + " FROM capstan_release_record WHERE namespace = ? AND name = ?"
                + " ORDER BY revision DESC FETCH FIRST 1 ROWS ONLY",
            namespace,
            name);
    return found.stream().findFirst();
  }

  @Override
  public List<StoredRelease> records(String namespace, String name) {
    return query(
        "read",
        namespace,
        name,
        "SELECT "
            + COLUMNS
            + " FROM capstan_release_record WHERE namespace = ? AND name = ?"
            + " ORDER BY revision DESC",
        namespace,
        name);
  }

  /**
   * {@inheritDoc} One {@code SELECT} of the release's rows, newest first; a row's record is decoded
   * when it is asked for, its revision and status coming from the row's columns, written with it.
   */
  @Override
  public List<RecordEntry> recordEntries(String namespace, String name) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT revision, status, row_version, record FROM capstan_release_record"
                    + " WHERE namespace = ? AND name = ? ORDER BY revision DESC")) {
      s.setString(1, namespace);
      s.setString(2, name);
      List<RecordEntry> found = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          int revision = rs.getInt(1);
          ReleaseStatus status = status(rs.getString(2));
          String version = Long.toString(rs.getLong(3));
          byte[] bytes = rs.getBytes(4);
          Supplier<StoredRelease> decode =
              () -> new StoredRelease(ReleaseRecordCodec.decode(bytes), version);
          found.add(
              status == null
                  ? RecordEntry.of(decode.get())
                  : RecordEntry.lazy(revision, status, decode));
        }
      }
      return found;
    } catch (SQLException e) {
      throw Sql.failure("read", RECORD, namespace, name, e);
    }
  }

  /**
   * {@inheritDoc} One {@code SELECT} of the latest row of each release (the join {@link
   * #latestRecords} makes), each record decoded when it is asked for: a row that cannot be read
   * fails alone.
   */
  @Override
  public SortedMap<String, RecordEntry> latestEntries(String namespace) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT r.name, r.revision, r.status, r.row_version, r.record"
                    + " FROM capstan_release_record r JOIN"
                    + " (SELECT name, MAX(revision) AS revision FROM capstan_release_record"
                    + " WHERE namespace = ? GROUP BY name) m"
                    + " ON r.name = m.name AND r.revision = m.revision WHERE r.namespace = ?")) {
      s.setString(1, namespace);
      s.setString(2, namespace);
      SortedMap<String, RecordEntry> found = new TreeMap<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(1);
          int revision = rs.getInt(2);
          ReleaseStatus status = status(rs.getString(3));
          String version = Long.toString(rs.getLong(4));
          byte[] bytes = rs.getBytes(5);
          Supplier<StoredRelease> decode =
              () -> new StoredRelease(ReleaseRecordCodec.decode(bytes), version);
          found.put(name, entry(revision, status, decode));
        }
      }
      return found;
    } catch (SQLException e) {
      throw Sql.failure("list", RECORD, namespace, null, e);
    }
  }

  /**
   * A row's entry: decoded when asked for, or at once for a status this store does not write; one
   * that cannot be decoded then fails when asked for.
   */
  private static RecordEntry entry(
      int revision, @Nullable ReleaseStatus status, Supplier<StoredRelease> decode) {
    if (status != null) {
      return RecordEntry.lazy(revision, status, decode);
    }
    try {
      return RecordEntry.of(decode.get());
    } catch (RecordFormatException e) {
      return RecordEntry.lazy(
          revision,
          ReleaseStatus.PENDING,
          () -> {
            throw e;
          });
    }
  }

  /**
   * {@inheritDoc} The SQL statement: {@code DELETE FROM capstan_release_record WHERE namespace =
   * 'shop' AND name = 'web' AND revision = 3}.
   */
  @Override
  public String recordRemoval(String namespace, String name, int revision) {
    return "DELETE FROM capstan_release_record WHERE namespace = '"
        + namespace.replace("'", "''")
        + "' AND name = '"
        + name.replace("'", "''")
        + "' AND revision = "
        + revision;
  }

  /** The status a row's column names, or {@code null} for one this store does not write. */
  private static @Nullable ReleaseStatus status(@Nullable String id) {
    for (ReleaseStatus s : ReleaseStatus.values()) {
      if (s.id().equals(id)) {
        return s;
      }
    }
    return null;
  }

  @Override
  public List<StoredRelease> latestRecords(String namespace) {
    List<StoredRelease> found =
        new ArrayList<>(
            query(
                "list",
                namespace,
                null,
                // a join with the grouped maxima: 7x faster on PostgreSQL than a correlated
                // subquery per row, at 1,000 releases x 20 revisions
                "SELECT r.row_version, r.record FROM capstan_release_record r JOIN"
                    + " (SELECT name, MAX(revision) AS revision FROM capstan_release_record"
                    + " WHERE namespace = ? GROUP BY name) m"
                    + " ON r.name = m.name AND r.revision = m.revision WHERE r.namespace = ?",
                namespace,
                namespace));
    // Java's order, not the database collation's, so every store lists alike
    found.sort(Comparator.comparing(s -> s.release().name()));
    return List.copyOf(found);
  }

  /** {@inheritDoc} One query. */
  @Override
  public List<StoredRelease> latestRecordsInAllNamespaces() {
    List<StoredRelease> found =
        new ArrayList<>(
            query(
                "list",
                "",
                null,
                "SELECT r.row_version, r.record FROM capstan_release_record r JOIN"
                    + " (SELECT namespace, name, MAX(revision) AS revision"
                    + " FROM capstan_release_record GROUP BY namespace, name) m"
                    + " ON r.namespace = m.namespace AND r.name = m.name"
                    + " AND r.revision = m.revision"));
    found.sort(StoredRelease.BY_NAMESPACE_AND_NAME);
    return List.copyOf(found);
  }

  @Override
  public StoredRelease createRecord(Release release) {
    byte[] bytes = ReleaseRecordCodec.encode(release);
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO capstan_release_record (namespace, name, revision, status, version,"
                    + " created_at, updated_at, row_version, record)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)")) {
      s.setString(1, release.namespace());
      s.setString(2, release.name());
      s.setInt(3, release.revision());
      s.setString(4, release.status().id());
      s.setString(5, release.version());
      s.setObject(6, Sql.time(release.createdAt()));
      s.setObject(7, Sql.time(release.updatedAt()));
      s.setBytes(8, bytes);
      s.executeUpdate();
      return new StoredRelease(release, "1");
    } catch (SQLException e) {
      if (Sql.isDuplicate(e)) {
        throw new StaleRecordException(
            release.qualifiedName(), release.revision(), "the revision already exists");
      }
      throw Sql.failure("create", RECORD, release.namespace(), release.name(), e);
    }
  }

  @Override
  public StoredRelease updateRecord(Release release, String expectedVersion) {
    long expected;
    try {
      expected = Long.parseLong(expectedVersion);
    } catch (NumberFormatException e) {
      throw new StaleRecordException(
          release.qualifiedName(),
          release.revision(),
          "expected version " + expectedVersion + ", which is no row_version of this store");
    }
    byte[] bytes = ReleaseRecordCodec.encode(release);
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE capstan_release_record SET status = ?, version = ?, created_at = ?,"
                  + " updated_at = ?, record = ?, row_version = row_version + 1"
                  + " WHERE namespace = ? AND name = ? AND revision = ? AND row_version = ?")) {
        s.setString(1, release.status().id());
        s.setString(2, release.version());
        s.setObject(3, Sql.time(release.createdAt()));
        s.setObject(4, Sql.time(release.updatedAt()));
        s.setBytes(5, bytes);
        s.setString(6, release.namespace());
        s.setString(7, release.name());
        s.setInt(8, release.revision());
        s.setLong(9, expected);
        if (s.executeUpdate() == 1) {
          return new StoredRelease(release, Long.toString(expected + 1));
        }
      }
      Long found = rowVersion(c, release);
      throw new StaleRecordException(
          release.qualifiedName(),
          release.revision(),
          found == null
              ? "the revision does not exist"
              : "expected version " + expectedVersion + ", found " + found);
    } catch (SQLException e) {
      throw Sql.failure("update", RECORD, release.namespace(), release.name(), e);
    }
  }

  private static @Nullable Long rowVersion(Connection c, Release release) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT row_version FROM capstan_release_record"
                + " WHERE namespace = ? AND name = ? AND revision = ?")) {
      s.setString(1, release.namespace());
      s.setString(2, release.name());
      s.setInt(3, release.revision());
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  @Override
  public void deleteRecord(String namespace, String name, int revision) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "DELETE FROM capstan_release_record"
                    + " WHERE namespace = ? AND name = ? AND revision = ?")) {
      s.setString(1, namespace);
      s.setString(2, name);
      s.setInt(3, revision);
      s.executeUpdate();
    } catch (SQLException e) {
      throw Sql.failure("delete", RECORD, namespace, name, e);
    }
  }

  /** {@inheritDoc} One {@code DELETE} of the release's rows. */
  @Override
  public void deleteRecords(String namespace, String name) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "DELETE FROM capstan_release_record WHERE namespace = ? AND name = ?")) {
      s.setString(1, namespace);
      s.setString(2, name);
      s.executeUpdate();
    } catch (SQLException e) {
      throw Sql.failure("delete", RECORD, namespace, name, e);
    }
  }

  private List<StoredRelease> query(
      String operation, String namespace, @Nullable String name, String sql, String... params) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        s.setString(i + 1, params[i]);
      }
      List<StoredRelease> found = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          long version = rs.getLong(1);
          byte[] bytes = rs.getBytes(2);
          found.add(new StoredRelease(ReleaseRecordCodec.decode(bytes), Long.toString(version)));
        }
      }
      return found;
    } catch (SQLException e) {
      throw Sql.failure(operation, RECORD, namespace, name, e);
    }
  }

  // ------------------------------------------------------------------------------- leases

  /**
   * {@inheritDoc} As {@link #acquireLease(String, String, String, String, Instant, Duration)} with
   * no intent: the row then names none, also when the lease is taken over or taken again.
   */
  @Override
  public LeaseGrant acquireLease(
      String namespace, String name, String holder, Instant now, Duration ttl) {
    return acquireLease(namespace, name, holder, null, now, ttl);
  }

  /**
   * {@inheritDoc} {@code true}: the intent is the lease row's {@code intent} column (schema version
   * 3), kept by renewals and set {@code NULL} (or deleted with the row) when the lease is given up.
   */
  @Override
  public boolean keepsLeaseIntents() {
    return true;
  }

  /**
   * {@inheritDoc} One transaction: the row read under its lock ({@code SELECT ... FOR UPDATE}),
   * then an {@code INSERT} of a row naming the intent, or an {@code UPDATE} that sets the {@code
   * intent} column to it (or {@code NULL}); the intent the row named is handed over only when it
   * had expired (another holder's, or the holder's own, left by an operation that stopped).
   *
   * @throws IllegalArgumentException if {@code intent} is longer than {@link #MAX_LEASE_INTENT}
   *     characters (nothing is written)
   */
  @Override
  public LeaseGrant acquireLease(
      String namespace,
      String name,
      String holder,
      @Nullable String intent,
      Instant now,
      Duration ttl) {
    requireNonNull(holder, "holder");
    if (intent != null && intent.length() > MAX_LEASE_INTENT) {
      throw new IllegalArgumentException(
          "a lease intent has at most "
              + MAX_LEASE_INTENT
              + " characters; this one has "
              + intent.length());
    }
    Instant at = Sql.micros(now);
    Lease lease = new Lease(holder, at, Sql.micros(now.plus(ttl)));
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        for (int attempt = 1; ; attempt++) {
          try {
            LeaseGrant grant = acquire(c, namespace, name, lease, intent, now);
            c.commit();
            return grant;
          } catch (SQLException e) {
            c.rollback();
            if (!Sql.isDuplicate(e) || attempt == LEASE_ATTEMPTS) {
              throw e;
            }
            // another holder inserted the row between our read and insert: read it again
          } catch (RuntimeException e) {
            c.rollback();
            throw e;
          }
        }
      } finally {
        c.setAutoCommit(autoCommit);
      }
    } catch (SQLException e) {
      throw Sql.failure("acquire", LEASE, namespace, name, e);
    }
  }

  private static LeaseGrant acquire(
      Connection c,
      String namespace,
      String name,
      Lease lease,
      @Nullable String intent,
      Instant now)
      throws SQLException {
    Optional<LeaseRow> row = lockedLease(c, namespace, name);
    if (row.isEmpty()) {
      // a fresh row starts at a random version: a row deleted (forgotten) and inserted again never
      // repeats a version a stalled holder of the old one remembers
      long version = 1 + FIRST_VERSIONS.nextLong(Long.MAX_VALUE >> 2);
      try (PreparedStatement s =
          c.prepareStatement(
              "INSERT INTO capstan_release_lease"
                  + " (namespace, name, holder, acquired_at, expires_at, lease_version, intent)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
        s.setString(1, namespace);
        s.setString(2, name);
        s.setString(3, lease.holder());
        s.setObject(4, Sql.time(lease.acquiredAt()));
        s.setObject(5, Sql.time(lease.expiresAt()));
        s.setLong(6, version);
        s.setString(7, intent);
        s.executeUpdate();
      }
      return new LeaseGrant(lease, null, Long.toString(version));
    }
    Lease held = row.get().held();
    Lease takenOver = null;
    if (held != null && !held.holder().equals(lease.holder()) && !held.expiredAt(now)) {
      throw new ReleaseLockedException(
          namespace + "/" + name, held.holder(), null, held.expiresAt(), now);
    }
    if (held != null && (!held.holder().equals(lease.holder()) || held.expiredAt(now))) {
      // another holder's expired lease, or the holder's own left expired by an operation that
      // stopped without giving it up: its intent is handed over
      takenOver = held;
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "UPDATE capstan_release_lease SET holder = ?, acquired_at = ?, expires_at = ?,"
                + " intent = ?, lease_version = lease_version + 1"
                + " WHERE namespace = ? AND name = ?")) {
      s.setString(1, lease.holder());
      s.setObject(2, Sql.time(lease.acquiredAt()));
      s.setObject(3, Sql.time(lease.expiresAt()));
      s.setString(4, intent);
      s.setString(5, namespace);
      s.setString(6, name);
      s.executeUpdate();
    }
    // the intent of the lease taken over, handed on only from an expired lease
    return new LeaseGrant(
        lease,
        takenOver,
        false,
        Long.toString(leaseVersion(c, namespace, name)),
        takenOver == null ? null : row.get().intent());
  }

  /** The version of the lease row, read in the transaction that holds its lock. */
  private static long leaseVersion(Connection c, String namespace, String name)
      throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT lease_version FROM capstan_release_lease WHERE namespace = ? AND name = ?")) {
      s.setString(1, namespace);
      s.setString(2, name);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the lease row of " + namespace + "/" + name + " is gone");
        }
        return rs.getLong(1);
      }
    }
  }

  /**
   * A lease row as read.
   *
   * @param held the lease, or {@code null} when it is released
   * @param intent the intent its holder named, or {@code null}
   */
  private record LeaseRow(@Nullable Lease held, @Nullable String intent) {}

  /** The lease row, locked: empty when there is no row. */
  private static Optional<LeaseRow> lockedLease(Connection c, String namespace, String name)
      throws SQLException {
    return leaseRow(c, namespace, name, " FOR UPDATE");
  }

  private static Optional<LeaseRow> leaseRow(
      Connection c, String namespace, String name, String suffix) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT holder, acquired_at, expires_at, intent FROM capstan_release_lease"
                + " WHERE namespace = ? AND name = ?"
                + suffix)) {
      s.setString(1, namespace);
      s.setString(2, name);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        String holder = rs.getString(1);
        String intent = rs.getString(4);
        if (holder == null) {
          return Optional.of(new LeaseRow(null, intent));
        }
        return Optional.of(
            new LeaseRow(
                new Lease(
                    holder,
                    Sql.instant(rs.getObject(2, OffsetDateTime.class), "acquired_at"),
                    Sql.instant(rs.getObject(3, OffsetDateTime.class), "expires_at")),
                intent));
      }
    }
  }

  /** {@inheritDoc} One {@code SELECT} of the lease row. */
  @Override
  public Optional<HeldLease> heldLease(String namespace, String name) {
    try (Connection c = dataSource.getConnection()) {
      return leaseRow(c, namespace, name, "")
          .filter(row -> row.held() != null)
          .map(row -> new HeldLease(requireNonNull(row.held()), row.intent()));
    } catch (SQLException e) {
      throw Sql.failure("read", LEASE, namespace, name, e);
    }
  }

  /**
   * {@inheritDoc} One {@code UPDATE ... WHERE holder = ? AND lease_version = ?} of the expiry and
   * the version, the intent left as it is; when it changes no row, the row is read to name who
   * holds the lease.
   */
  @Override
  public String renewLease(
      String namespace, String name, String holder, String version, Instant now, Duration ttl) {
    long expected;
    try {
      expected = Long.parseLong(version);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "not a lease version of this store: " + dev.capstan.common.Escapes.quote(version), e);
    }
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE capstan_release_lease SET expires_at = ?, lease_version = lease_version + 1"
                  + " WHERE namespace = ? AND name = ? AND holder = ? AND lease_version = ?")) {
        s.setObject(1, Sql.time(Sql.micros(now.plus(ttl))));
        s.setString(2, namespace);
        s.setString(3, name);
        s.setString(4, holder);
        s.setLong(5, expected);
        if (s.executeUpdate() == 1) {
          return Long.toString(expected + 1);
        }
      }
      Lease held = leaseRow(c, namespace, name, "").map(LeaseRow::held).orElse(null);
      throw new ReleaseLockedException(
          namespace + "/" + name,
          held == null ? "nobody" : held.holder(),
          held == null ? now : held.expiresAt());
    } catch (SQLException e) {
      throw Sql.failure("renew", LEASE, namespace, name, e);
    }
  }

  /**
   * {@inheritDoc} One {@code UPDATE} setting {@code holder} and {@code intent} {@code NULL}, or
   * when {@code forget} one {@code DELETE} of the row.
   */
  @Override
  public void releaseLease(String namespace, String name, String holder, boolean forget) {
    String sql =
        forget
            ? "DELETE FROM capstan_release_lease"
                + " WHERE namespace = ? AND name = ? AND (holder = ? OR holder IS NULL)"
            : "UPDATE capstan_release_lease SET holder = NULL, intent = NULL,"
                + " lease_version = lease_version + 1"
                + " WHERE namespace = ? AND name = ? AND holder = ?";
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, namespace);
      s.setString(2, name);
      s.setString(3, holder);
      s.executeUpdate();
    } catch (SQLException e) {
      throw Sql.failure("release", LEASE, namespace, name, e);
    }
  }
}
