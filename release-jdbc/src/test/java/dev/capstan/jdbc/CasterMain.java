package dev.capstan.jdbc;

import dev.capstan.release.ReleaseController;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.memory.Operation;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ServiceSpec;
import java.time.Duration;

/**
 * The second JVM of {@link TwoJvmLeaseTest}: casts a release with its records and lease in
 * PostgreSQL and an in-memory orchestrator; with {@code hang}, the wait for health takes an hour,
 * so it holds the lease (renewing it) until it is killed.
 *
 * <p>Arguments: JDBC URL, namespace, release name, holder, image, lease seconds, then optionally
 * {@code hang}.
 */
final class CasterMain {
  private CasterMain() {}

  public static void main(String[] args) {
    String url = args[0];
    String namespace = args[1];
    String name = args[2];
    String holder = args[3];
    String image = args[4];
    Duration lease = Duration.ofSeconds(Long.parseLong(args[5]));
    InMemoryCluster cluster = InMemoryCluster.create().addNamespace(namespace);
    if (args.length > 6 && args[6].equals("hang")) {
      cluster.faults().delay(Operation.AWAIT_READY, Duration.ofHours(1));
    }
    ReleaseController controller =
        ReleaseController.builder(
                cluster, JdbcStore.create(new DriverDataSource(url, "capstan", "")))
            .holder(holder)
            .leaseDuration(lease)
            .build();
    System.out.println(controller.cast(spec(namespace, name, image), payloads(namespace, image)));
  }

  static Payloads payloads(String namespace, String image) {
    return Payloads.of(
        ServiceSpec.builder(namespace, "web").image(image).replicas(1).port("http", 8080).build());
  }

  static ReleaseSpec spec(String namespace, String name, String image) {
    return ReleaseSpec.of(namespace, name, payloads(namespace, image));
  }
}
