package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.Await;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The API requests a cast of a 500-object mixed release costs (250 ConfigMaps, 100 Secrets, 50
 * PersistentVolumeClaims, 50 Deployments and their 50 Services, in one namespace), against the
 * floor: one LIST per kind and namespace, plus one write per changed object, plus the record and
 * lease calls. Prints the figures (they are in release-k8s/README.md) and asserts them; request
 * counts, never time.
 *
 * <p>Every count is exact, whatever the machine's load, because nothing counted depends on timing:
 * lease renewals are background requests, counted apart ({@link
 * RequestCounter#backgroundCounts()}); and whether the health stage opens WATCHes is decided by the
 * test, not by how fast the control plane rolls out. The install waits, when the cast starts
 * verifying, until every Deployment is current (so the health LIST finds nothing to watch); the
 * cast that changes one Deployment gives it the {@linkplain ControlPlane#HELD_IMAGE held image},
 * whose pod becomes Ready only once the test has seen the WATCHes open.
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
              .image(changed && i == 0 ? ControlPlane.HELD_IMAGE : "registry.example/svc:1")
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
    AtomicReference<Runnable> whenVerifying = new AtomicReference<>(() -> {});
    ReleaseController controller =
        cluster
            .controller()
            .listener(
                e -> {
                  Runnable step = whenVerifying.get();
                  if (e instanceof ReleaseEvent.Verifying && step != null) {
                    step.run();
                  }
                })
            .build();
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
    // the health LIST comes after every Deployment is current: nothing is left to watch
    whenVerifying.set(() -> Cluster.awaitDeploymentsCurrent(plane, ns, SERVICES));
    CastResult first = controller.cast(ReleaseSpec.of(ns, "big", initial), initial);
    whenVerifying.set(() -> {});
    assertThat(first.plan().changes(Action.CREATE)).hasSize(500);
    SortedMap<String, Long> install = cluster.requests().counts();
    report.add(line("first install", install, 500));
    // A create is one server-side apply, fenced: it fails if the object appeared since the plan.
    assertThat(objectWrites(install)).isEqualTo(500);
    // built-in kinds at their GA versions: no discovery round (BuiltInKinds)
    assertThat(discovery(install)).isZero();
    assertThat(install)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST secrets", 2L), // observation, and the records under the lease
                Map.entry("LIST persistentvolumeclaims", 2L), // observation, health
                Map.entry("LIST storageclasses", 1L), // health of the claims
                Map.entry("LIST deployments", 2L), // observation, health
                // observation only: the 50 ClusterIP Services were current as written
                Map.entry("LIST services", 1L),
                Map.entry("CREATE leases", 1L),
                Map.entry("DELETE leases", 1L),
                Map.entry("PATCH configmaps", 250L),
                Map.entry("PATCH secrets", 100L),
                Map.entry("PATCH persistentvolumeclaims", 50L),
                Map.entry("PATCH deployments", 50L),
                Map.entry("PATCH services", 50L),
                // the revision, recorded once at the end (DEPLOYED): the lease named the intent
                Map.entry("CREATE secrets", 1L)));
    assertRenewalsOnly(cluster);

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
                Map.entry("CREATE secrets", 1L))); // the previous revision is read superseded
    assertThat(cluster.requests().total()).isEqualTo(9);
    assertRenewalsOnly(cluster);

    Payloads five = payloads(ns, true);
    cluster.requests().reset();
    // svc-000 rolls out to the held image: its new pod becomes Ready only once the health stage
    // has opened its WATCHes, which the test sees in the counts before it lets the pod go
    CompletableFuture<Integer> released =
        CompletableFuture.supplyAsync(
            () -> {
              Await.until(
                  "the health WATCHes of deployments and pods",
                  Cluster.ROLLOUT,
                  () ->
                      (cluster.requests().count("WATCH deployments") == 1
                              && cluster.requests().count("WATCH pods") == 1)
                          ? true
                          : null);
              return Await.until(
                  "a held pod of svc-000 to release",
                  Cluster.ROLLOUT,
                  () -> {
                    int n = plane.releaseHeldPods(ns, "registry.example/svc:2");
                    return n > 0 ? n : null;
                  });
            });
    CastResult changed = controller.cast(ReleaseSpec.of(ns, "big", five), five);
    assertThat(released.join()).isEqualTo(1);
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
    // The Deployment rolls out, judged from its status, followed from its write's answer (no
    // LIST), and its pods watched once the grace has passed, for a reason to fail early (its
    // ReplicaSets only once a pod cannot become ready, which a held pod is not).
    assertThat(fiveChanged)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("WATCH deployments", 1L),
                Map.entry("WATCH pods", 1L),
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST persistentvolumeclaims", 2L), // observation, health
                Map.entry("LIST deployments", 1L), // observation
                Map.entry("LIST services", 1L),
                Map.entry("LIST secrets", 2L), // observation, and the records under the lease
                Map.entry("CREATE leases", 1L),
                Map.entry("DELETE leases", 1L),
                Map.entry("PATCH configmaps", 2L),
                Map.entry("PATCH secrets", 1L),
                Map.entry("PATCH persistentvolumeclaims", 1L),
                Map.entry("PATCH deployments", 1L),
                // DEPLOYED, once (the lease named the intent; the previous one read superseded)
                Map.entry("CREATE secrets", 1L)));
    assertThat(cluster.requests().total()).isEqualTo(17);
    assertRenewalsOnly(cluster);

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
        .containsEntry("UPDATE secrets", 1L);
    // 500 DELETEs, 5 observation LISTs, 1 record read (under the lease), the lease (CREATE to take
    // it, naming the uninstall; DELETE to give it up), the record UNINSTALLED
    assertThat(cluster.requests().total()).isEqualTo(500 + 5 + 1 + 2 + 1);
    assertRenewalsOnly(cluster);

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

  @Test
  void leaseRenewalsDuringACastAreBackgroundRequests(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    // paused with the lease held until the renewer (every second here) has renewed it twice
    ReleaseController controller =
        cluster
            .controllerPausingBeforeTheFirstWrite(
                () ->
                    Await.until(
                        "two lease renewals",
                        Cluster.ROLLOUT,
                        () ->
                            (cluster.requests().backgroundCounts().getOrDefault("UPDATE leases", 0L)
                                    >= 2)
                                ? true
                                : null))
            .leaseDuration(Duration.ofSeconds(3))
            .leaseRenewal(Duration.ofSeconds(1))
            .build();
    Payloads one = Payloads.of(ConfigMapSpec.of(ns, "settings", Map.of("a", "1")));

    cluster.requests().reset();
    controller.cast(ReleaseSpec.of(ns, "renewed", one), one);

    // the renewals, however many there were, are apart; the cast's own requests are exact
    SortedMap<String, Long> renewals = cluster.requests().backgroundCounts();
    // each renewal is one UPDATE on the lease's last version, never read first; at least the two
    // the pause waited for
    assertThat(renewals.keySet()).containsExactly("UPDATE leases");
    assertThat(renewals.get("UPDATE leases")).isGreaterThanOrEqualTo(2L);
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST secrets", 1L), // the records, under the lease (no Secret observed)
                Map.entry("CREATE leases", 1L),
                Map.entry("DELETE leases", 1L),
                Map.entry("PATCH configmaps", 1L),
                Map.entry("CREATE secrets", 1L))); // DEPLOYED, once
  }

  /**
   * The background requests are lease renewals, each one UPDATE of the release's Lease on the
   * resourceVersion of its last write, never read first, and the cast's reads of a request to yield
   * (a GET of the release's yield-request Lease, at most once a second from one second in); how
   * many of each depends on how long the operation ran.
   */
  private static void assertRenewalsOnly(Cluster cluster) {
    assertThat(cluster.requests().backgroundLog())
        .allSatisfy(
            line ->
                assertThat(line)
                    .matches(
                        "UPDATE leases [^/]+/capstan\\.release\\.v1\\.[^/]+|GET leases [^/]+/capstan\\.yield\\.v1\\.[^/]+"));
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

  /** Requests per floor request (lease renewals are background requests, not in the counts). */
  private static double ratio(Map<String, Long> counts, long changedObjects) {
    long total = counts.values().stream().mapToLong(Long::longValue).sum();
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
   * one CREATE of the revision's record is left out; so are the lease's CREATE and DELETE).
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
