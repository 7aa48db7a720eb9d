package dev.capstan.examples;

import dev.capstan.jdbc.JdbcStore;
import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesOrchestrator;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.result.CastResult;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A host application's wiring of the release engine with Kubernetes as the {@code Orchestrator} and
 * PostgreSQL as the {@code Store}: the objects go to the cluster, the release records and the
 * operation lease to the application's own database, so no release Secret or Lease is written to
 * the cluster.
 *
 * <pre>{@code
 * java -cp examples/target/capstan-examples-all.jar dev.capstan.examples.PostgresReleases \
 *     ~/.kube/config 'jdbc:postgresql://127.0.0.1:5432/deploys?user=capstan' demo
 * }</pre>
 */
public final class PostgresReleases {
  private PostgresReleases() {}

  /**
   * A PostgreSQL data source for {@code url} ({@code jdbc:postgresql://HOST[:PORT]/DATABASE}, user
   * and password as URL parameters or in {@code ~/.pgpass}). A host application would hand its
   * connection pool over instead.
   */
  public static DataSource dataSource(String url) {
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setURL(url);
    return db;
  }

  /**
   * The release engine: objects through {@code clients}' cluster, records and leases in {@code db}.
   * The Capstan schema must be installed in {@code db} ({@link JdbcStore#migrate()}, once, at
   * deploy time).
   */
  public static ReleaseController controller(KubeClients clients, DataSource db) {
    return ReleaseController.builder(new KubernetesOrchestrator(clients), JdbcStore.create(db))
        .holder("postgres-releases-example")
        .build();
  }

  /** The example release: a web service and its settings, at {@code version}. */
  public static ReleaseSpec spec(String namespace, String version) {
    return ReleaseSpec.of(namespace, "web", payloads(namespace, version)).withVersion(version);
  }

  /** The objects of {@link #spec}. */
  public static Payloads payloads(String namespace, String version) {
    return Payloads.builder()
        .service(
            ServiceSpec.builder(namespace, "web")
                .image("registry.example/demo/web:v" + version)
                .replicas(1)
                .port("http", 8080)
                .envFromConfigMap("web-settings")
                .build())
        .configMap(ConfigMapSpec.of(namespace, "web-settings", Map.of("log-level", "info")))
        .build();
  }

  /**
   * Installs the schema if it is missing, casts {@link #spec} at 1.0.0 and prints the release's
   * history.
   */
  public static void run(KubeClients clients, DataSource db, String namespace, PrintStream out) {
    JdbcStore.create(db).migrate();
    ReleaseController releases = controller(clients, db);
    CastResult result =
        releases.cast(new ReleaseInput(spec(namespace, "1.0.0"), payloads(namespace, "1.0.0")));
    out.println(
        "release "
            + result.release().qualifiedName()
            + " revision "
            + result.release().revision()
            + " "
            + result.release().status().id());
    for (Release r : releases.history(namespace, "web")) {
      out.println("  revision " + r.revision() + " " + r.status().id() + " " + r.version());
    }
  }

  /**
   * Runs the example.
   *
   * @param args the kubeconfig file, the JDBC URL of the PostgreSQL database, the namespace
   */
  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: PostgresReleases KUBECONFIG JDBC_URL NAMESPACE");
      System.exit(2);
    }
    run(KubeClients.fromKubeconfig(Path.of(args[0])), dataSource(args[1]), args[2], System.out);
  }
}
