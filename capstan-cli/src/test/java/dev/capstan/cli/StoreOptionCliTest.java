package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --store jdbc:...} refuses what cannot work before any write, with one line and no stack
 * trace, never echoing a password; the schema is created only with {@code --store-migrate}. H2 in a
 * file stands in for the database here; {@code JdbcStoreOnKubernetesIT} casts with PostgreSQL on a
 * real control plane.
 */
class StoreOptionCliTest {
  @TempDir Path dir;
  private String out = "";
  private String err = "";
  private String h2 = "";

  @BeforeEach
  void kubeconfigOfAClusterNeverContacted() throws IOException {
    // The commands below fail or finish before any Kubernetes request: port 1 refuses anyway.
    RefusingKubeconfig.write(dir);
    h2 = "jdbc:h2:" + dir.resolve("records").toAbsolutePath();
  }

  private int run(Map<String, String> env, String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", "kubeconfig"));
    all.addAll(List.of(args));
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
    out = run.out();
    err = run.err();
    return run.code();
  }

  private int run(String... args) {
    return run(Map.of(), args);
  }

  private List<String> tables() throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(h2);
        ResultSet rs =
            c.getMetaData().getTables(null, "PUBLIC", "%", new String[] {"TABLE", "BASE TABLE"})) {
      while (rs.next()) {
        names.add(rs.getString("TABLE_NAME").toLowerCase(java.util.Locale.ROOT));
      }
    }
    return names.stream().sorted().toList();
  }

  @Test
  void aValueThatIsNoJdbcUrlIsRefusedWithExitCode2() {
    assertThat(run("release", "list", "-n", "demo", "--store", "postgres://db/x\u001b[2J"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: --store must be a JDBC URL, jdbc:DRIVER:DATABASE (e.g."
                + " jdbc:postgresql://HOST[:PORT]/DATABASE): 'postgres://db/x\\u001b[2J'\n");
    assertThat(out).isEmpty();
  }

  @Test
  void aUrlNoDriverAcceptsIsRefusedNamingTheDriversAndHidingThePassword() {
    assertThat(
            run(
                "release",
                "list",
                "--store",
                "jdbc:mysql://db.example:3306/capstan?user=capstan&password=hunter2"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: --store: no JDBC driver on the class path accepts"
                + " 'jdbc:mysql://db.example:3306/capstan?user=capstan&password=***' (drivers:"
                + " org.h2.Driver, org.postgresql.Driver); capstan ships PostgreSQL's, for"
                + " jdbc:postgresql://HOST[:PORT]/DATABASE, and a driver refuses a URL it cannot"
                + " parse, such as a port that is no number\n");
  }

  @Test
  void aDatabaseWithoutTheSchemaIsRefusedAndLeftWithoutTables() throws SQLException {
    assertThat(run("release", "list", "-n", "demo", "--store", h2)).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: --store '"
                + h2
                + "': the Capstan schema is not installed in this database; pass --store-migrate"
                + " once to install it (version 3), or run release-jdbc's db/capstan/ scripts with"
                + " your migration tool\n");
    assertThat(out).isEmpty();
    assertThat(tables()).isEmpty();
  }

  @Test
  void storeMigrateInstallsTheSchemaOnceThenCommandsUseTheDatabase() throws SQLException {
    assertThat(run("release", "list", "-n", "demo", "--store", h2, "--store-migrate"))
        .as(err)
        .isZero();
    assertThat(err).isEqualTo("capstan: installed the Capstan schema in " + h2 + " (version 3)\n");
    assertThat(out).isEqualTo("NAME  REVISION  STATUS  VERSION  UPDATED\n");
    assertThat(tables())
        .containsExactly(
            "capstan_release_lease", "capstan_release_record", "capstan_schema_version");

    assertThat(run(Map.of("CAPSTAN_STORE", h2), "release", "list", "-n", "demo")).isZero();
    assertThat(err).isEmpty();
    assertThat(out).isEqualTo("NAME  REVISION  STATUS  VERSION  UPDATED\n");

    assertThat(run("release", "list", "-n", "demo", "--store", h2, "--store-migrate")).isZero();
    assertThat(err).isEqualTo("capstan: the Capstan schema in " + h2 + " is current (version 3)\n");
  }

  @Test
  void storeMigrateWithoutAStoreIsRefused() {
    assertThat(run("release", "list", "--store-migrate")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: --store-migrate needs the database: pass --store JDBC_URL (or set"
                + " $CAPSTAN_STORE)\n");
  }

  @Test
  void aDatabaseThatCannotBeReachedFailsWithOneLineThatHidesThePassword() {
    String url = "jdbc:postgresql://127.0.0.1:1/capstan?user=capstan&password=hunter2";
    assertThat(run("release", "list", "--store", url)).isEqualTo(ExitCode.FAILED);
    assertThat(err)
        .startsWith(
            "capstan: read schema failed: cannot connect to"
                + " jdbc:postgresql://127.0.0.1:1/capstan?user=capstan&password=***: Connection to"
                + " 127.0.0.1:1 refused.")
        .endsWith(" (SQLState 08001)\n")
        .doesNotContain("hunter2")
        .hasLineCount(1);
  }

  @Test
  void aPasswordInTheUserInfoIsHiddenToo() {
    assertThat(DatabaseStore.redact("jdbc:postgresql://capstan:hunter2@db:5432/x;PASSWORD=pw"))
        .isEqualTo("jdbc:postgresql://capstan:***@db:5432/x;PASSWORD=***");
  }
}
