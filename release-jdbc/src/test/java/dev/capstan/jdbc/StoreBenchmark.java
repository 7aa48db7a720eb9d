package dev.capstan.jdbc;

import dev.capstan.k8s.KubeClients;
import dev.capstan.k8s.KubernetesStore;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.ContentHash;
import dev.capstan.release.model.OwnedResource;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.port.Store;
import dev.capstan.release.port.StoredRelease;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.IntConsumer;
import javax.sql.DataSource;

/**
 * Figures for a {@link Store} (a benchmark, not a test: it asserts nothing): record write (create,
 * compare-and-set update) and read (latest, history of 20) latency, listing 1,000 releases with
 * 1,000 releases of 20 revisions each stored, and taking and giving back a lease. The same
 * operations run on the JDBC store on a real PostgreSQL on loopback ({@code postgres}, one
 * connection reused throughout, as a pool would) and on the Kubernetes store on the control plane
 * of a kubeconfig ({@code kubernetes FILE}, records in a fresh namespace, deleted at the end). A
 * record is a realistic release of a service, its Secret and a ConfigMap. Run it as README.md says.
 */
final class StoreBenchmark {
  private static final int RELEASES = 1000;
  private static final int REVISIONS = 20;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static String ns = "bench";

  private StoreBenchmark() {}

  public static void main(String[] args) throws SQLException, ApiException {
    if (args.length == 2 && args[0].equals("kubernetes")) {
      kubernetes(Path.of(args[1]));
    } else if (args.length == 0 || (args.length == 1 && args[0].equals("postgres"))) {
      postgres();
    } else {
      System.err.println("usage: StoreBenchmark [postgres | kubernetes KUBECONFIG]");
      System.exit(2);
    }
  }

  private static void postgres() throws SQLException {
    try (PostgresServer postgres = PostgresServer.start();
        Connection connection = postgres.dataSource().getConnection()) {
      JdbcStore store = JdbcStore.create(reusing(connection));
      store.migrate();
      run(
          store,
          "JdbcStore on PostgreSQL " + connection.getMetaData().getDatabaseProductVersion(),
          RELEASES,
          20);
    }
  }

  private static void kubernetes(Path kubeconfig) throws ApiException {
    KubeClients clients = KubeClients.fromKubeconfig(kubeconfig);
    CoreV1Api core = new CoreV1Api(clients.apiClient());
    ns = "bench-" + Long.toString(System.currentTimeMillis(), 36);
    core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(ns))).execute();
    try {
      KubernetesStore store = new KubernetesStore(clients);
      // each labelled LIST costs about as much as reading all 20,000 Secrets of the namespace:
      // fewer samples of the reads, so that a run takes minutes, not an hour
      run(store, "KubernetesStore on " + clients.server() + " (namespace " + ns + ")", 50, 3);
      clients.requests().reset();
      store.latestRecords(ns);
      System.out.println("requests of one latestRecords: " + clients.requests().counts());
      clients.requests().reset();
      store.latestRecord(ns, name(7));
      System.out.println("requests of one latestRecord: " + clients.requests().counts());
    } finally {
      core.deleteNamespace(ns).execute();
    }
  }

  private static void run(Store store, String what, int reads, int lists) {
    System.out.printf(
        Locale.ROOT,
        "%s, %d releases x %d revisions, record %d bytes (codec)%n",
        what,
        RELEASES,
        REVISIONS,
        ReleaseRecordCodec.encode(release(0, 1)).length);
    StoredRelease[] latest = new StoredRelease[RELEASES];
    time(
        "createRecord (20,000, up to 1,000 x 20 stored)",
        RELEASES * REVISIONS,
        k -> latest[k % RELEASES] = store.createRecord(release(k % RELEASES, k / RELEASES + 1)));
    time(
        "updateRecord (compare-and-set)",
        RELEASES,
        i ->
            latest[i] =
                store.updateRecord(
                    latest[i].release().withStatus(ReleaseStatus.DEPLOYED, T0),
                    latest[i].version()));
    Random random = new Random(15);
    time(
        "latestRecord",
        reads,
        i -> {
          if (store.latestRecord(ns, name(random.nextInt(RELEASES))).isEmpty()) {
            throw new IllegalStateException("a release has no record");
          }
        });
    time(
        "records (history of 20)",
        reads,
        i -> {
          if (store.records(ns, name(random.nextInt(RELEASES))).size() != REVISIONS) {
            throw new IllegalStateException("history is not 20 revisions long");
          }
        });
    time(
        "latestRecords (list of 1,000)",
        lists,
        i -> {
          if (store.latestRecords(ns).size() != RELEASES) {
            throw new IllegalStateException("the list is not 1,000 releases long");
          }
        });
    byte[] encoded = ReleaseRecordCodec.encode(release(0, 1));
    time(
        "ReleaseRecordCodec.decode alone (no database)",
        RELEASES,
        i -> {
          if (ReleaseRecordCodec.decode(encoded).revision() != 1) {
            throw new IllegalStateException("decoded the wrong revision");
          }
        });
    time(
        "acquireLease + releaseLease",
        reads,
        i -> {
          store.acquireLease(ns, name(i), "bench", T0, java.time.Duration.ofSeconds(30));
          store.releaseLease(ns, name(i), "bench", false);
        });
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "app-%04d", i);
  }

  private static Release release(int i, int revision) {
    Payloads payloads =
        Payloads.of(
            ServiceSpec.builder(ns, "web-" + i)
                .image("registry.example/web:1." + revision)
                .replicas(3)
                .port("http", 8080)
                .env("MODE", "prod")
                .envFromSecret("creds-" + i)
                .envFromConfigMap("settings-" + i)
                .build(),
            SecretSpec.of(ns, "creds-" + i, Map.of("password", "s3cret-" + revision)),
            ConfigMapSpec.of(ns, "settings-" + i, Map.of("level", "info", "rev", "" + revision)));
    return new Release(
        "id-" + i,
        ns,
        name(i),
        revision,
        revision == REVISIONS ? ReleaseStatus.PENDING : ReleaseStatus.SUPERSEDED,
        payloads.refs().stream()
            .map(r -> new OwnedResource(r, ContentHash.of(payloads.get(r).orElseThrow())))
            .toList(),
        List.of(),
        List.of(),
        "git@example.com:acme/web.git",
        "1." + revision,
        null,
        payloads,
        null,
        T0.plusSeconds(revision),
        T0.plusSeconds(revision),
        null);
  }

  private static void time(String label, int n, IntConsumer op) {
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      op.accept(i);
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    System.out.printf(
        Locale.ROOT,
        "%-46s n=%5d  p50 %8.3f ms  p90 %8.3f ms  p99 %8.3f ms  mean %8.3f ms%n",
        label,
        n,
        nanos[n / 2] / 1e6,
        nanos[n * 9 / 10] / 1e6,
        nanos[Math.min(n - 1, n * 99 / 100)] / 1e6,
        Arrays.stream(nanos).average().orElse(0) / 1e6);
  }

  /** A data source that hands out one connection and ignores {@code close()}, like a pool of 1. */
  private static DataSource reusing(Connection connection) {
    Connection kept =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("close")) {
                    return null;
                  }
                  try {
                    return method.invoke(connection, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return kept;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
