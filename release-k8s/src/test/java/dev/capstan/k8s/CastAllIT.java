package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.CastOutcome;
import dev.capstan.release.result.UninstallOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * {@code ReleaseController.castAll} on the control plane: a fleet of releases of 6 objects each (3
 * ConfigMaps, a Secret, a Deployment and its Service) in one namespace. Cast again unchanged, the
 * whole fleet costs the records' LIST and one LIST per kind, whatever its size: within 1.25 times
 * the fleet's floor of one LIST per kind. Request counts, exact; never time.
 */
@ControlPlaneTest
class CastAllIT {
  private static final int RELEASES = 12;

  private static ReleaseInput app(String ns, int i, String value) {
    String name = String.format(Locale.ROOT, "app-%02d", i);
    Payloads payloads =
        Payloads.builder()
            .configMap(ConfigMapSpec.of(ns, name + "-app", Map.of("value", value)))
            .configMap(ConfigMapSpec.of(ns, name + "-env", Map.of("MODE", "fleet")))
            .configMap(ConfigMapSpec.of(ns, name + "-files", Map.of("a.txt", "a")))
            .secret(SecretSpec.of(ns, name + "-token", Map.of("token", "t-" + name)))
            .service(
                ServiceSpec.builder(ns, name)
                    .image("registry.example/app:1")
                    .port("http", 8080)
                    .build())
            .build();
    return new ReleaseInput(ReleaseSpec.of(ns, name, payloads), payloads);
  }

  private static List<ReleaseInput> fleet(String ns, int changed) {
    return fleet(ns, i -> i == changed ? "new" : "old");
  }

  /** The fleet, release {@code i} with the value {@code value(i)}. */
  private static List<ReleaseInput> fleet(String ns, IntFunction<String> value) {
    List<ReleaseInput> out = new ArrayList<>();
    for (int i = 0; i < RELEASES; i++) {
      out.add(app(ns, i, value.apply(i)));
    }
    return out;
  }

  @Test
  void aFleetAsAskedCostsTheRecordsListAndOneListPerKind(ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();

    List<CastOutcome> installed = controller.castAll(fleet(ns, -1), 4);
    assertThat(installed)
        .allSatisfy(
            o ->
                assertThat(o)
                    .isInstanceOfSatisfying(
                        CastOutcome.Cast.class,
                        c -> {
                          assertThat(c.result().release().revision()).isEqualTo(1);
                          assertThat(c.result().plan().changes(Action.CREATE)).hasSize(6);
                        }));

    cluster.requests().reset();
    List<CastOutcome> again = controller.castAll(fleet(ns, -1), 4);
    assertThat(again)
        .allSatisfy(
            o ->
                assertThat(o)
                    .isInstanceOfSatisfying(
                        CastOutcome.Unchanged.class,
                        u -> assertThat(u.deployed().revision()).isEqualTo(1)));
    // the 12 releases' latest records in one LIST, then each kind of the namespace once: 5
    // requests, 1.25 times the floor of one LIST per kind (4); no lease, no record, no write
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "LIST secrets", 2L, // the records, and the Secrets observed
                "LIST configmaps", 1L,
                "LIST deployments", 1L,
                "LIST services", 1L));
    assertThat(cluster.requests().total()).isEqualTo(5);

    // one release's ConfigMap changes: the shared reads, then that release's cast alone
    cluster.requests().reset();
    List<CastOutcome> one = controller.castAll(fleet(ns, 3), 4);
    for (int i = 0; i < RELEASES; i++) {
      if (i == 3) {
        assertThat(one.get(i))
            .isInstanceOfSatisfying(
                CastOutcome.Cast.class,
                c ->
                    assertThat(c.result().plan().changes(Action.UPDATE))
                        .extracting(ch -> ch.ref().key())
                        .containsExactly("ConfigMap/" + ns + "/app-03-app"));
      } else {
        assertThat(one.get(i)).isInstanceOf(CastOutcome.Unchanged.class);
      }
    }
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                // the shared reads, as above, and under its lease its records and what it names
                Map.entry("LIST secrets", 4L),
                Map.entry("LIST configmaps", 2L),
                Map.entry("LIST deployments", 2L),
                Map.entry("LIST services", 2L),
                Map.entry("CREATE leases", 1L),
                Map.entry("PATCH configmaps", 1L),
                Map.entry("CREATE secrets", 1L), // the revision, recorded once
                Map.entry("DELETE leases", 1L)));

    // half the fleet changes (4 at once: one group of up to 8): the shared reads; the six leases;
    // under them, the six releases'
    // records in one LIST and what they name in one LIST per kind; then each one's write and
    // record, and its lease given up. Cast one by one, the six would have read 30 times.
    cluster.requests().reset();
    List<CastOutcome> half =
        controller.castAll(fleet(ns, i -> i % 2 == 0 ? "newer" : i == 3 ? "new" : "old"), 4);
    for (int i = 0; i < RELEASES; i++) {
      if (i % 2 == 0) {
        assertThat(half.get(i))
            .isInstanceOfSatisfying(
                CastOutcome.Cast.class,
                c -> assertThat(c.result().plan().changes(Action.UPDATE)).hasSize(1));
      } else {
        assertThat(half.get(i)).isInstanceOf(CastOutcome.Unchanged.class);
      }
    }
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST secrets", 4L), // twice the records, twice the Secrets observed
                Map.entry("LIST configmaps", 2L),
                Map.entry("LIST deployments", 2L),
                Map.entry("LIST services", 2L),
                Map.entry("CREATE leases", 6L),
                Map.entry("PATCH configmaps", 6L),
                Map.entry("CREATE secrets", 6L),
                Map.entry("DELETE leases", 6L)));
    assertThat(cluster.requests().total()).isEqualTo(34);

    // the whole fleet uninstalled and purged: the twelve leases; under them the records in one
    // LIST and what the releases own in one LIST per kind; then each one's fenced deletes, the
    // purge of its records, and its lease given up
    cluster.requests().reset();
    List<ReleaseRef> refs = new ArrayList<>();
    for (ReleaseInput input : fleet(ns, -1)) {
      refs.add(new ReleaseRef(ns, input.spec().name()));
    }
    List<UninstallOutcome> gone =
        controller.uninstallAll(refs, UninstallOptions.defaults().withPurge(true), 6); // 1 group
    assertThat(gone)
        .allSatisfy(
            o ->
                assertThat(o)
                    .isInstanceOfSatisfying(
                        UninstallOutcome.Uninstalled.class,
                        u -> assertThat(u.result().deleted()).hasSize(6)));
    assertThat(cluster.requests().counts())
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("CREATE leases", 12L),
                Map.entry("LIST secrets", 2L), // the records, and the Secrets observed
                Map.entry("LIST configmaps", 1L),
                Map.entry("LIST deployments", 1L),
                Map.entry("LIST services", 1L),
                Map.entry("DELETE configmaps", 36L),
                Map.entry("DELETE secrets", 12L),
                Map.entry("DELETE deployments", 12L),
                Map.entry("DELETE services", 12L),
                Map.entry("DELETECOLLECTION secrets", 12L), // each release's records purged
                Map.entry("DELETE leases", 12L)));
    assertThat(controller.list(ns, true)).isEmpty();
  }
}
