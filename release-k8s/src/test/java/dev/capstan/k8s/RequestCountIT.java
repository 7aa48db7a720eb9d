package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.CastResult;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.UninstallOptions;
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
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The API requests a cast of a 500-object mixed release costs (250 ConfigMaps, 100 Secrets, 50
 * PersistentVolumeClaims, 50 Deployments and their 50 Services, in one namespace), against the
 * floor: one LIST per kind and namespace, plus one write per changed object, plus the record and
 * lease calls. Prints the figures (they are in release-k8s/README.md) and asserts them; request
 * counts, never time.
 */
@ControlPlaneTest
class RequestCountIT {
  private static final int CONFIG_MAPS = 250;
  private static final int SECRETS = 100;
  private static final int VOLUMES = 50;
  private static final int SERVICES = 50; // a Deployment and a Service each

  /** The kinds observed: one LIST each. */
  private static final Set<String> OBSERVED =
      Set.of(
          "namespaces",
          "configmaps",
          "secrets",
          "persistentvolumeclaims",
          "deployments",
          "services");

  /** The record and lease calls. */
  private static final Set<String> BOOKKEEPING =
      Set.of(
          "LIST secrets",
          "CREATE secrets",
          "UPDATE secrets",
          "GET leases",
          "CREATE leases",
          "UPDATE leases",
          "DELETE leases");

  /** Lease renewals: every 5 s of a cast, not part of a step's floor. */
  private static final Set<String> RENEWAL = Set.of("GET leases", "UPDATE leases");

  /** Read the record, take the lease, give it up, write the record. */
  private static final int BOOKKEEPING_FLOOR = 4;

  private static Payloads payloads(String ns, boolean changed) {
    Payloads.Builder b = Payloads.builder();
    for (int i = 0; i < CONFIG_MAPS; i++) {
      String n = String.format(Locale.ROOT, "%03d", i);
      boolean change = changed && i < 2;
      b.configMap(
          ConfigMapSpec.of(ns, "config-" + n, Map.of("value", change ? "new" : "old", "index", n)));
    }
    for (int i = 0; i < SECRETS; i++) {
      String n = String.format(Locale.ROOT, "%03d", i);
      b.secret(
          SecretSpec.of(
              ns, "secret-" + n, Map.of("token", (changed && i == 0 ? "new-" : "") + "t" + n)));
    }
    for (int i = 0; i < VOLUMES; i++) {
      String n = String.format(Locale.ROOT, "%03d", i);
      VolumeSpec volume = VolumeSpec.of(ns, "data-" + n, "1Gi");
      b.volume(
          changed && i == 0
              ? new VolumeSpec(
                  ns,
                  volume.name(),
                  volume.size(),
                  null,
                  volume.accessModes(),
                  volume.reclaimPolicy(),
                  new TreeMap<>(Map.of("tier", "hot")),
                  volume.annotations())
              : volume);
    }
    for (int i = 0; i < SERVICES; i++) {
      String n = String.format(Locale.ROOT, "%03d", i);
      b.service(
          ServiceSpec.builder(ns, "svc-" + n)
              .image("registry.example/svc:" + (changed && i == 0 ? "2" : "1"))
              .port("http", 8080)
              .env("INDEX", n)
              .build());
    }
    return b.build();
  }

  @Test
  void requestsPerCastOfA500ObjectMixedRelease(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    List<String> report = new ArrayList<>();
    report.add(
        String.format(
            Locale.ROOT,
            "%-22s %6s %6s %6s %6s %7s %7s %11s %9s %6s",
            "cast (500 objects)",
            "total",
            "floor",
            "ratio",
            "LIST",
            "obs.LIST",
            "writes",
            "bookkeeping",
            "discovery",
            "watch"));

    Payloads initial = payloads(ns, false);
    assertThat(initial.objects()).hasSize(500);
    cluster.requests().reset();
    CastResult first = controller.cast(ReleaseSpec.of(ns, "big", initial), initial);
    assertThat(first.plan().changes(Action.CREATE)).hasSize(500);
    SortedMap<String, Long> install = cluster.requests().counts();
    report.add(line("first install", install, 500));
    // A create is one server-side apply, fenced: it fails if the object appeared since the plan.
    assertThat(objectWrites(install)).isEqualTo(500);
    // built-in kinds at their GA versions: no discovery round (BuiltInKinds)
    assertThat(discovery(install)).isZero();
    // Exact but for the health WATCHes (while something rolls out) and lease renewals.
    SortedMap<String, Long> installButTiming = new TreeMap<>(install);
    installButTiming.keySet().removeIf(k -> k.startsWith("WATCH ") || RENEWAL.contains(k));
    assertThat(installButTiming)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST secrets", 2L), // observation, and the records under the lease
                Map.entry("LIST persistentvolumeclaims", 2L), // observation, health
                Map.entry("LIST storageclasses", 1L), // health of the claims
                Map.entry("LIST deployments", 2L), // observation, health
                Map.entry("LIST services", 2L), // observation, health
                Map.entry("CREATE leases", 1L),
                Map.entry("DELETE leases", 1L),
                Map.entry("PATCH configmaps", 250L),
                Map.entry("PATCH secrets", 100L),
                Map.entry("PATCH persistentvolumeclaims", 50L),
                Map.entry("PATCH deployments", 50L),
                Map.entry("PATCH services", 50L),
                Map.entry("CREATE secrets", 1L), // the PENDING record
                Map.entry("UPDATE secrets", 1L))); // DEPLOYED (nothing to supersede)
    // a renewal is one UPDATE on the lease's last resourceVersion, never read first
    assertThat(install.getOrDefault("GET leases", 0L)).isZero();
    // the ReplicaSets are watched only once a pod cannot become ready (HealthWatch)
    assertThat(install.keySet())
        .filteredOn(k -> k.startsWith("WATCH "))
        .isSubsetOf("WATCH deployments", "WATCH pods");

    cluster.requests().reset();
    CastResult noop = controller.cast(ReleaseSpec.of(ns, "big", initial), initial);
    assertThat(noop.plan().changes(Action.UNCHANGED)).hasSize(500);
    SortedMap<String, Long> unchanged = cluster.requests().counts();
    report.add(line("no-op", unchanged, 0));
    assertThat(objectWrites(unchanged)).isZero();
    assertThat(discovery(unchanged)).isZero();
    for (String kind : OBSERVED) {
      // (the namespace is not listed: the lease was just created in it)
      if (!kind.equals("secrets") && !kind.equals("namespaces")) {
        assertThat(unchanged.get("LIST " + kind)).as("LIST " + kind).isEqualTo(1L);
      }
    }
    // Exact, and independent of the release's size: the observation LISTs, record and lease.
    assertThat(unchanged)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST persistentvolumeclaims", 1L),
                Map.entry("LIST deployments", 1L),
                Map.entry("LIST services", 1L),
                Map.entry("LIST secrets", 2L), // observation, and the records under the lease
                Map.entry("CREATE leases", 1L), // take
                Map.entry("DELETE leases", 1L), // give up
                // a cast that writes no object records its revision once, DEPLOYED (no PENDING)
                Map.entry("CREATE secrets", 1L),
                Map.entry("UPDATE secrets", 1L))); // previous revision SUPERSEDED
    assertThat(cluster.requests().total()).isEqualTo(10);

    Payloads five = payloads(ns, true);
    cluster.requests().reset();
    CastResult changed = controller.cast(ReleaseSpec.of(ns, "big", five), five);
    assertThat(changed.plan().changes(Action.UPDATE))
        .extracting(c -> c.ref().key())
        .containsExactly(
            "PersistentVolumeClaim/" + ns + "/data-000",
            "ConfigMap/" + ns + "/config-000",
            "ConfigMap/" + ns + "/config-001",
            "Secret/" + ns + "/secret-000",
            "apps/Deployment/" + ns + "/svc-000");
    SortedMap<String, Long> fiveChanged = cluster.requests().counts();
    report.add(line("5 changed", fiveChanged, 5));
    assertThat(objectWrites(fiveChanged)).isEqualTo(5);
    // Exact but for lease renewals (a GET and an UPDATE each, every 5 s of a longer cast) and the
    // health WATCHes: the Deployment rolls out, judged from its status and its pods watched for a
    // reason to fail early (its ReplicaSets only once a pod cannot become ready); when the control
    // plane has rolled it out before the health LIST, nothing is left to watch.
    SortedMap<String, Long> fiveButRenewals = new TreeMap<>(fiveChanged);
    fiveButRenewals.keySet().removeIf(k -> RENEWAL.contains(k) || k.startsWith("WATCH "));
    SortedMap<String, Long> fiveWatches = new TreeMap<>(fiveChanged);
    fiveWatches.keySet().removeIf(k -> !k.startsWith("WATCH "));
    assertThat(fiveWatches)
        .satisfiesAnyOf(
            w -> assertThat(w).isEmpty(),
            w ->
                assertThat(w)
                    .containsExactlyInAnyOrderEntriesOf(
                        Map.of("WATCH deployments", 1L, "WATCH pods", 1L)));
    // a renewal is one UPDATE on the lease's last resourceVersion, never read first
    assertThat(fiveChanged.getOrDefault("GET leases", 0L)).isZero();
    assertThat(fiveButRenewals)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST persistentvolumeclaims", 2L), // observation, health
                Map.entry("LIST deployments", 2L), // observation, health
                Map.entry("LIST services", 1L),
                Map.entry("LIST secrets", 2L), // observation, and the records under the lease
                Map.entry("CREATE leases", 1L),
                Map.entry("DELETE leases", 1L),
                Map.entry("PATCH configmaps", 2L),
                Map.entry("PATCH secrets", 1L),
                Map.entry("PATCH persistentvolumeclaims", 1L),
                Map.entry("PATCH deployments", 1L),
                Map.entry("CREATE secrets", 1L), // PENDING
                Map.entry("UPDATE secrets", 2L))); // DEPLOYED, previous revision SUPERSEDED
    assertThat(fiveButRenewals.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(18);

    // Uninstall: one observation LIST per kind, then one DELETE per object with the observed uid
    // and resourceVersion as preconditions (no GET), a rank at a time, its objects in parallel.
    cluster.requests().reset();
    controller.uninstall(ns, "big", UninstallOptions.defaults());
    SortedMap<String, Long> uninstall = cluster.requests().counts();
    report.add(line("uninstall", uninstall, 500));
    assertThat(objectWrites(uninstall)).isEqualTo(500);
    assertThat(uninstall)
        .containsEntry("DELETE configmaps", 250L)
        .containsEntry("DELETE secrets", 100L)
        .containsEntry("DELETE persistentvolumeclaims", 50L)
        .containsEntry("DELETE deployments", 50L)
        .containsEntry("DELETE services", 50L);
    assertThat(uninstall.keySet()).filteredOn(k -> k.startsWith("GET ")).isEmpty();
    assertThat(uninstall)
        .containsEntry("LIST configmaps", 1L)
        .containsEntry("LIST persistentvolumeclaims", 1L)
        .containsEntry("LIST deployments", 1L)
        .containsEntry("LIST services", 1L)
        .containsEntry("LIST secrets", 2L) // observation, the record under the lease
        .containsEntry("CREATE leases", 1L)
        .containsEntry("DELETE leases", 1L)
        .containsEntry("UPDATE secrets", 2L);
    // 500 DELETEs, 5 observation LISTs, 1 record read (under the lease), the lease (CREATE to take
    // it, DELETE to give it up), the record UNINSTALLING and UNINSTALLED; and, when the uninstall
    // runs longer than the renewal period (timing: left out of the exact count, as above), one
    // UPDATE of the lease per renewal, never read first
    assertThat(uninstall.getOrDefault("GET leases", 0L)).isZero();
    assertThat(cluster.requests().total() - uninstall.getOrDefault("UPDATE leases", 0L))
        .isEqualTo(500 + 5 + 1 + 2 + 2);

    report.add(
        "floor = one LIST per kind and namespace ("
            + OBSERVED.size()
            + ") + one write per changed object + one WATCH per kind while waiting + "
            + BOOKKEEPING_FLOOR
            + " (read the record, take the lease, give it up, write the record);"
            + " bookkeeping = record and lease calls");
    System.out.println(String.join("\n", report));
    // issue 14: within 1.25 times the floor on every step
    assertThat(ratio(install, 500)).isLessThanOrEqualTo(1.25);
    assertThat(ratio(unchanged, 0)).isLessThanOrEqualTo(1.25);
    assertThat(ratio(fiveChanged, 5)).isLessThanOrEqualTo(1.25);
    assertThat(ratio(uninstall, 500)).isLessThanOrEqualTo(1.25);
  }

  private static String line(String what, SortedMap<String, Long> counts, long changedObjects) {
    long total = counts.values().stream().mapToLong(Long::longValue).sum();
    long observeLists =
        OBSERVED.stream().mapToLong(k -> Math.min(1, counts.getOrDefault("LIST " + k, 0L))).sum();
    long watchedKinds = counts.keySet().stream().filter(k -> k.startsWith("WATCH ")).count();
    long floor = OBSERVED.size() + changedObjects + watchedKinds + BOOKKEEPING_FLOOR;
    long bookkeeping =
        counts.entrySet().stream()
                .filter(e -> BOOKKEEPING.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum()
            - Math.min(1, counts.getOrDefault("LIST secrets", 0L)); // one is observation
    return String.format(
        Locale.ROOT,
        "%-22s %6d %6d %6.2f %6d %7d %7d %11d %9d %6d   %s",
        what,
        total,
        floor,
        ratio(counts, changedObjects),
        sum(counts, "LIST "),
        observeLists,
        objectWrites(counts),
        bookkeeping,
        discovery(counts),
        watches(counts),
        counts);
  }

  /** Requests per floor request, lease renewals left out. */
  private static double ratio(Map<String, Long> counts, long changedObjects) {
    long total =
        counts.entrySet().stream()
            .filter(e -> !RENEWAL.contains(e.getKey()))
            .mapToLong(Map.Entry::getValue)
            .sum();
    long watchedKinds = counts.keySet().stream().filter(k -> k.startsWith("WATCH ")).count();
    return (double) total / (OBSERVED.size() + changedObjects + watchedKinds + BOOKKEEPING_FLOOR);
  }

  private static long discovery(Map<String, Long> counts) {
    return counts.getOrDefault("GET /api", 0L) + counts.getOrDefault("GET /apis", 0L);
  }

  private static long watches(Map<String, Long> counts) {
    return sum(counts, "WATCH ");
  }

  /**
   * CREATE, PATCH and DELETE of objects (record Secrets are created and updated, never patched: the
   * one CREATE of a PENDING record is left out; so are the lease's CREATE and DELETE).
   */
  private static long objectWrites(Map<String, Long> counts) {
    return sum(counts, "CREATE ")
        - Math.min(1, counts.getOrDefault("CREATE secrets", 0L))
        - counts.getOrDefault("CREATE leases", 0L)
        + sum(counts, "PATCH ")
        + sum(counts, "DELETE ")
        - counts.getOrDefault("DELETE leases", 0L);
  }

  private static long sum(Map<String, Long> counts, String prefix) {
    return counts.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }
}
