package dev.capstan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.ReleaseLockedException;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.HeldLease;
import dev.capstan.release.result.CastResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two JVMs cast one release with records and lease in PostgreSQL: the second one is locked out with
 * the holder named; after {@code kill -9} of the holder it takes over once the lease expires and
 * records the interrupted revision {@code FAILED} from the cast its lease named.
 */
@ExtendWith(PostgresExtension.class)
class TwoJvmLeaseTest {
  private static final String NS = "two-jvm";
  private static final String IMAGE = "registry.example/web:1";
  private static final int LEASE_SECONDS = 5;

  @Test
  void killedHolderIsTakenOverAfterExpiryAndItsRevisionRecordedFailed(PostgresServer postgres)
      throws Exception {
    DriverDataSource db = postgres.dataSource();
    JdbcStore store = JdbcStore.create(db);
    store.migrate();
    Path log = Path.of("target", "caster-child.log").toAbsolutePath();
    Process child =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    CasterMain.class.getName(),
                    postgres.url(),
                    NS,
                    "app",
                    "caster-b",
                    IMAGE,
                    Integer.toString(LEASE_SECONDS),
                    "hang"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      awaitCastUnderWay(store, child, log);
      ReleaseController me =
          ReleaseController.builder(InMemoryCluster.create().addNamespace(NS), store)
              .holder("caster-a")
              .leaseDuration(Duration.ofSeconds(LEASE_SECONDS))
              .build();

      assertThatThrownBy(() -> me.cast(CasterMain.spec(NS, "app", IMAGE), payloads()))
          .isInstanceOfSatisfying(
              ReleaseLockedException.class,
              e -> {
                assertThat(e.holder()).isEqualTo("caster-b");
                assertThat(e.release()).isEqualTo(NS + "/app");
              })
          .hasMessageStartingWith("release two-jvm/app is locked by caster-b (");

      child.destroyForcibly(); // SIGKILL: no shutdown hook, no lease release
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      Instant expiry = leaseExpiry(db).orElseThrow();
      CastResult result = castUntilUnlocked(me, Duration.ofSeconds(30));

      assertThat(Instant.now()).isAfterOrEqualTo(expiry);
      assertThat(result.release().revision()).isEqualTo(2);
      assertThat(result.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
      Release interrupted = me.history(NS, "app").get(1);
      assertThat(interrupted.revision()).isEqualTo(1);
      assertThat(interrupted.status()).isEqualTo(ReleaseStatus.FAILED);
      assertThat(interrupted.failure())
          .isEqualTo(
              "interrupted: the lease of caster-b expired at "
                  + expiry
                  + " before the cast finished");
      assertThat(leaseHolder(db)).isEmpty();
    } finally {
      child.destroyForcibly();
    }
  }

  private static dev.capstan.release.model.Payloads payloads() {
    return CasterMain.payloads(NS, IMAGE);
  }

  /** Waits until the child's lease names its cast: it has taken the lease and casts. */
  private static void awaitCastUnderWay(JdbcStore store, Process child, Path log)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      Optional<HeldLease> held = store.heldLease(NS, "app");
      if (held.isPresent()
          && held.get().lease().holder().equals("caster-b")
          && String.valueOf(held.get().intent()).contains("\"operation\":\"cast\"")) {
        return;
      }
      if (!child.isAlive()) {
        throw new AssertionError(
            "the casting JVM ended early:\n" + Files.readString(log, StandardCharsets.UTF_8));
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the casting JVM did not start its cast within 60 s");
  }

  private static CastResult castUntilUnlocked(ReleaseController me, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      try {
        return me.cast(CasterMain.spec(NS, "app", IMAGE), payloads());
      } catch (ReleaseLockedException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static Optional<Instant> leaseExpiry(DriverDataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT expires_at FROM capstan_release_lease WHERE namespace = ? AND name = ?")) {
      s.setString(1, NS);
      s.setString(2, "app");
      try (ResultSet rs = s.executeQuery()) {
        return rs.next()
            ? Optional.of(rs.getObject(1, OffsetDateTime.class).toInstant())
            : Optional.empty();
      }
    }
  }

  private static Optional<@Nullable String> leaseHolder(DriverDataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT holder FROM capstan_release_lease WHERE namespace = ? AND name = ?")) {
      s.setString(1, NS);
      s.setString(2, "app");
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
      }
    }
  }
}
