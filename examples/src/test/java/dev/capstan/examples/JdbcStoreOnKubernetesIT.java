package dev.capstan.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.cli.CliRun;
import dev.capstan.cli.Terminal;
import dev.capstan.jdbc.JdbcStore;
import dev.capstan.jdbc.PostgresExtension;
import dev.capstan.jdbc.PostgresServer;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Secret;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Releases on the real control plane with their records and leases in a real PostgreSQL server:
 * through the CLI's {@code --store} and through the {@link PostgresReleases} example. The objects
 * are in the cluster; no release record Secret and no Lease is; the records are in PostgreSQL.
 */
@ControlPlaneTest
@ExtendWith(PostgresExtension.class)
class JdbcStoreOnKubernetesIT {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  @BeforeEach
  void schemaInstalled(PostgresServer postgres) {
    JdbcStore.create(postgres.dataSource()).migrate();
  }

  private int run(ControlPlane plane, PostgresServer postgres, String... args) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--kubeconfig",
                plane.kubeconfig().toString(),
                "--store",
                postgres.url() + "?user=capstan"));
    all.addAll(List.of(args));
    Map<String, @Nullable String> env = Map.of("WEB_DB_PASSWORD", "pw-in-postgres-it");
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, all.toArray(String[]::new));
    out = run.out();
    err = run.err();
    return run.code();
  }

  /** The namespace's Secrets, {@code name type} each, by name. */
  private static List<String> secrets(ControlPlane plane, String namespace) throws ApiException {
    return new CoreV1Api(plane.client())
        .listNamespacedSecret(namespace).execute().getItems().stream()
            .map(
                (V1Secret s) ->
                    Objects.requireNonNull(s.getMetadata()).getName() + " " + s.getType())
            .sorted()
            .toList();
  }

  private static List<String> leases(ControlPlane plane, String namespace) throws ApiException {
    return new CoordinationV1Api(plane.client())
        .listNamespacedLease(namespace).execute().getItems().stream()
            .map(l -> Objects.requireNonNull(l.getMetadata()).getName())
            .toList();
  }

  /** The release's rows in PostgreSQL, {@code name revision status version} each. */
  private static List<String> records(PostgresServer postgres, String namespace)
      throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = postgres.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT name, revision, status, version FROM capstan_release_record"
                    + " WHERE namespace = ? ORDER BY name, revision")) {
      s.setString(1, namespace);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(
              rs.getString(1) + " " + rs.getInt(2) + " " + rs.getString(3) + " " + rs.getString(4));
        }
      }
    }
    return rows;
  }

  private static List<String> leaseRows(PostgresServer postgres, String namespace)
      throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = postgres.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT name, holder FROM capstan_release_lease WHERE namespace = ? ORDER BY name")) {
      s.setString(1, namespace);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(rs.getString(1) + " " + rs.getString(2));
        }
      }
    }
    return rows;
  }

  @Test
  void theCliCastsAndUninstallsWithRecordsInPostgresAndNoReleaseSecretOrLeaseInTheCluster(
      ControlPlane plane, PostgresServer postgres, TestNamespace ns) throws Exception {
    String n = ns.name();
    Files.writeString(
        dir.resolve("release.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: web, namespace: NS, version: 1.0.0}
        spec:
          services:
          - name: web
            image: registry.example/demo/web:v1.0.0
            replicas: 1
            ports: [{name: http, port: 8080}]
            envFrom: [{secret: web-db}, {configMap: web-settings}]
          secrets:
          - {name: web-db, fromEnv: {password: WEB_DB_PASSWORD}}
          configMaps:
          - {name: web-settings, data: {log-level: info}}
        """
            .replace("NS", n));

    assertThat(run(plane, postgres, "release", "cast", "-f", "release.yaml", "--yes"))
        .as(err)
        .isZero();
    assertThat(out).endsWith("Release " + n + "/web revision 1 deployed.\n");
    assertThat(new AppsV1Api(plane.client()).readNamespacedDeployment("web", n).execute())
        .isNotNull();
    assertThat(secrets(plane, n)).containsExactly("web-db Opaque");
    assertThat(leases(plane, n)).isEmpty();
    assertThat(records(postgres, n)).containsExactly("web 1 deployed 1.0.0");
    assertThat(leaseRows(postgres, n)).containsExactly("web null");

    assertThat(run(plane, postgres, "release", "list", "-n", n)).as(err).isZero();
    assertThat(out)
        .startsWith("NAME  REVISION  STATUS    VERSION  UPDATED\nweb   1         deployed  1.0.0");

    assertThat(run(plane, postgres, "release", "uninstall", "web", "-n", n, "--yes"))
        .as(err)
        .isZero();
    assertThat(new CoreV1Api(plane.client()).listNamespacedConfigMap(n).execute().getItems())
        .extracting(c -> Objects.requireNonNull(c.getMetadata()).getName())
        .containsExactly("kube-root-ca.crt");
    assertThat(secrets(plane, n)).isEmpty();
    assertThat(leases(plane, n)).isEmpty();
    assertThat(records(postgres, n)).containsExactly("web 1 uninstalled 1.0.0");

    assertThat(run(plane, postgres, "release", "uninstall", "web", "-n", n, "--purge", "--yes"))
        .as(err)
        .isZero();
    assertThat(records(postgres, n)).isEmpty();
    assertThat(secrets(plane, n)).isEmpty();
    assertThat(leases(plane, n)).isEmpty();
  }

  @Test
  void thePostgresExampleCastsOnTheClusterAndRecordsInPostgresOnly(
      ControlPlane plane, PostgresServer postgres, TestNamespace ns) throws Exception {
    String n = ns.name();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    PostgresReleases.run(
        KubeClients.fromKubeconfig(plane.kubeconfig()),
        PostgresReleases.dataSource(postgres.url() + "?user=capstan"),
        n,
        new PrintStream(printed, true, UTF_8));

    assertThat(printed.toString(UTF_8))
        .isEqualTo("release " + n + "/web revision 1 deployed\n  revision 1 deployed 1.0.0\n");
    assertThat(
            new CoreV1Api(plane.client())
                .readNamespacedConfigMap("web-settings", n)
                .execute()
                .getData())
        .isEqualTo(Map.of("log-level", "info"));
    assertThat(new AppsV1Api(plane.client()).readNamespacedDeployment("web", n).execute())
        .isNotNull();
    assertThat(secrets(plane, n)).isEmpty();
    assertThat(leases(plane, n)).isEmpty();
    assertThat(records(postgres, n)).containsExactly("web 1 deployed 1.0.0");
  }
}
