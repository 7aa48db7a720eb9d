package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.CastResult;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * The API requests a cast of a 200-object release costs (50 services with a port, 50 configmaps, 50
 * secrets, 50 volumes in one namespace), against the floor: one LIST per Kubernetes kind and
 * namespace, plus one write per changed Kubernetes object. Prints the figures (they are in
 * release-k8s/README.md) and asserts them; request counts, never time.
 */
@ControlPlaneTest
class RequestCountIT {
  private static final int PER_KIND = 50;

  /**
   * LISTs of observation: namespaces, persistentvolumeclaims, configmaps, secrets, deployments,
   * services.
   */
  private static final int OBSERVE_LISTS = 6;

  /** What a cast costs besides observation and object writes, when nothing rolls out. */
  private static final Map<String, Long> BOOKKEEPING =
      Map.of(
          "LIST secrets", 3L, // latest record before and after taking the lease, history
          "LIST deployments", 1L, // readiness: one LIST settles rollouts that are over
          "GET leases", 2L,
          "UPDATE leases", 2L, // take, give up
          "CREATE secrets", 1L, // PENDING record
          "UPDATE secrets", 2L); // DEPLOYED, previous revision SUPERSEDED

  private static Payloads payloads(String ns, int changed) {
    Payloads.Builder b = Payloads.builder();
    for (int i = 0; i < PER_KIND; i++) {
      String n = String.format(Locale.ROOT, "%03d", i);
      boolean change = i < changed;
      b.configMap(
          ConfigMapSpec.of(ns, "config-" + n, Map.of("value", change ? "new" : "old", "index", n)));
      b.secret(
          SecretSpec.of(
              ns, "secret-" + n, Map.of("token", (i == 0 && change ? "new-" : "") + "t" + n)));
      VolumeSpec volume = VolumeSpec.of(ns, "data-" + n, "1Gi");
      b.volume(
          i == 0 && change
              ? new VolumeSpec(
                  ns,
                  volume.name(),
                  volume.size(),
                  null,
                  volume.accessModes(),
                  volume.reclaimPolicy(),
                  new java.util.TreeMap<>(Map.of("tier", "hot")),
                  volume.annotations())
              : volume);
      b.service(
          ServiceSpec.builder(ns, "svc-" + n)
              .image("registry.example/svc:" + (i == 0 && change ? "2" : "1"))
              .port("http", 8080)
              .env("INDEX", n)
              .build());
    }
    return b.build();
  }

  @Test
  void requestsPerCastOfA200ObjectRelease(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    List<String> report = new ArrayList<>();
    report.add(
        String.format(
            Locale.ROOT,
            "%-28s %6s %6s %8s %8s %11s %6s",
            "cast (200 objects)",
            "total",
            "LIST",
            "writes",
            "floor",
            "bookkeeping",
            "watch"));

    Payloads initial = payloads(ns, 0);
    assertThat(initial.size()).isEqualTo(200);
    cluster.requests().reset();
    CastResult first = controller.cast(ReleaseSpec.of(ns, "big", initial), initial);
    assertThat(first.plan().changes(Action.CREATE)).hasSize(200);
    SortedMap<String, Long> install = cluster.requests().counts();
    report.add(line("first install", install, 250));
    // One apply per Kubernetes object: 50 Deployments, 50 Services, 150 others.
    assertThat(objectWrites(install)).isEqualTo(250);
    assertThat(install.get("PATCH deployments")).isEqualTo(50);
    assertThat(install.get("PATCH services")).isEqualTo(50);
    assertThat(lists(install)).isLessThanOrEqualTo(OBSERVE_LISTS + 3 + 1 + 1);
    assertThat(watches(install)).isLessThanOrEqualTo(10);
    assertThat(cluster.requests().total()).isLessThanOrEqualTo(250 + OBSERVE_LISTS + 12 + 10 + 2);

    cluster.requests().reset();
    CastResult noop = controller.cast(ReleaseSpec.of(ns, "big", initial), initial);
    assertThat(noop.plan().changes(Action.UNCHANGED)).hasSize(200);
    SortedMap<String, Long> unchanged = cluster.requests().counts();
    report.add(line("no-op", unchanged, 0));
    assertThat(objectWrites(unchanged)).isZero();
    assertThat(unchanged)
        .containsExactlyInAnyOrderEntriesOf(
            merge(
                BOOKKEEPING,
                Map.of(
                    "LIST namespaces", 1L,
                    "LIST persistentvolumeclaims", 1L,
                    "LIST configmaps", 1L,
                    "LIST secrets", 1L,
                    "LIST deployments", 1L,
                    "LIST services", 1L)));

    Payloads five = payloads(ns, 2);
    cluster.requests().reset();
    CastResult changed = controller.cast(ReleaseSpec.of(ns, "big", five), five);
    assertThat(changed.plan().changes(Action.UPDATE))
        .extracting(c -> c.ref().key())
        .containsExactly(
            "volume/" + ns + "/data-000",
            "configmap/" + ns + "/config-000",
            "configmap/" + ns + "/config-001",
            "secret/" + ns + "/secret-000",
            "service/" + ns + "/svc-000");
    SortedMap<String, Long> fiveChanged = cluster.requests().counts();
    report.add(line("5 changed (6 k8s objects)", fiveChanged, 6));
    assertThat(objectWrites(fiveChanged)).isEqualTo(6);
    assertThat(lists(fiveChanged)).isEqualTo(OBSERVE_LISTS + 3 + 1);
    assertThat(watches(fiveChanged)).isBetween(1L, 4L);

    report.add("floor = " + OBSERVE_LISTS + " LISTs + one write per changed Kubernetes object");
    report.add(
        "bookkeeping = record and lease calls (LIST/CREATE/UPDATE secrets, GET/UPDATE leases) and"
            + " the readiness LIST");
    System.out.println(String.join("\n", report));
  }

  private static String line(String what, SortedMap<String, Long> counts, long changedObjects) {
    long total = counts.values().stream().mapToLong(Long::longValue).sum();
    long floor = OBSERVE_LISTS + changedObjects;
    long bookkeeping =
        BOOKKEEPING.entrySet().stream()
                .mapToLong(e -> Math.min(e.getValue(), counts.getOrDefault(e.getKey(), 0L)))
                .sum()
            + counts.getOrDefault("CREATE leases", 0L);
    return String.format(
        Locale.ROOT,
        "%-28s %6d %6d %8d %8d %11d %6d   %s",
        what,
        total,
        lists(counts),
        objectWrites(counts),
        floor,
        bookkeeping,
        watches(counts),
        counts);
  }

  private static long lists(Map<String, Long> counts) {
    return sum(counts, "LIST ");
  }

  private static long watches(Map<String, Long> counts) {
    return sum(counts, "WATCH ");
  }

  /** PATCH and DELETE of objects (record Secrets are created and updated, never patched). */
  private static long objectWrites(Map<String, Long> counts) {
    return sum(counts, "PATCH ") + sum(counts, "DELETE ");
  }

  private static long sum(Map<String, Long> counts, String prefix) {
    return counts.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static Map<String, Long> merge(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> out = new java.util.TreeMap<>(a);
    b.forEach((k, v) -> out.merge(k, v, Long::sum));
    return out;
  }
}
