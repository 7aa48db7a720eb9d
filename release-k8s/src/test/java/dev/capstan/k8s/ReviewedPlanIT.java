package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.result.CastResult;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * Casting a reviewed plan on the real control plane: a plan made stale by another manager's edit of
 * a planned object is refused with no object written; a fresh plan casts; and what the CLI's plan →
 * confirm → cast flow costs, in requests, against planning twice ({@code plan} then {@code
 * cast(spec)}).
 */
@ControlPlaneTest
class ReviewedPlanIT {
  private static final int CONFIG_MAPS = 10;

  private static Payloads payloads(String ns, String config) {
    Payloads.Builder b = Payloads.builder();
    b.configMap(ConfigMapSpec.of(ns, "web-config", Map.of("mode", config)));
    for (int i = 1; i < CONFIG_MAPS; i++) {
      b.configMap(
          ConfigMapSpec.of(ns, String.format(Locale.ROOT, "extra-%02d", i), Map.of("i", "x")));
    }
    b.secret(SecretSpec.of(ns, "web-db", Map.of("password", "S3CR3T-never-shown")));
    b.service(
        ServiceSpec.builder(ns, "web").image("registry.example/web:1").port("http", 8080).build());
    return b.build();
  }

  private static ReleaseSpec spec(String ns, Payloads p) {
    return ReleaseSpec.of(ns, "web", p);
  }

  private static long objectWrites(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .filter(e -> e.getKey().startsWith("PATCH ") || e.getKey().startsWith("DELETE "))
        .filter(e -> !e.getKey().equals("DELETE leases")) // giving the lease up
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static long total(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  @Test
  void aPlanMadeStaleByAnotherManagersEditIsRefusedWithNoWriteAndAFreshPlanCasts(
      ControlPlane plane, TestNamespace tns) throws Exception {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    controller.cast(spec(ns, payloads(ns, "v1")), payloads(ns, "v1"));
    Payloads v2 = payloads(ns, "v2");
    Plan reviewed = controller.plan(spec(ns, v2));
    ResourceRef config = ResourceRef.of(Kind.CONFIG_MAP, ns, "web-config");
    assertThat(reviewed.changes(Action.UPDATE)).extracting(c -> c.ref()).containsExactly(config);
    String planned =
        Objects.requireNonNull(reviewed.fingerprint())
            .observed(config)
            .map(PlanFingerprint.Observed::resourceVersion)
            .orElseThrow();

    // kubectl-like: a server-side apply of the planned object by another field manager
    cluster.applyConfigMapAs("kubectl", ns, "web-config", Map.of("note", "edited"), false);
    String now =
        cluster
            .core
            .readNamespacedConfigMap("web-config", ns)
            .execute()
            .getMetadata()
            .getResourceVersion();
    cluster.requests().reset();

    assertThatThrownBy(() -> controller.cast(reviewed, v2))
        .isInstanceOf(StalePlanException.class)
        .hasMessage(
            "release "
                + ns
                + "/web: the plan for revision 2 is stale; nothing was written; plan again:\n"
                + "  - ConfigMap/"
                + ns
                + "/web-config changed since the plan (resourceVersion "
                + planned
                + " → "
                + now
                + ")");
    SortedMap<String, Long> refused = cluster.requests().counts();
    System.out.println("refused cast(plan): " + refused);
    assertThat(objectWrites(refused)).isZero();
    assertThat(refused)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "CREATE leases", 1L, // take
                "DELETE leases", 1L, // give up
                "LIST secrets", 2L, // the record, read again under the lease; the Secret
                "LIST configmaps", 1L, // every object the plan owns, one LIST per kind
                "LIST deployments", 1L,
                "LIST services", 1L));
    assertThat(controller.get(ns, "web").orElseThrow().revision()).isEqualTo(1);

    Plan fresh = controller.plan(spec(ns, v2));
    CastResult cast = controller.cast(fresh, v2);
    assertThat(cast.plan()).isSameAs(fresh);
    assertThat(cast.release().revision()).isEqualTo(2);
    assertThat(cast.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(cluster.core.readNamespacedConfigMap("web-config", ns).execute().getData())
        .containsEntry("mode", "v2")
        .containsEntry("note", "edited");
  }

  @Test
  void aReviewedCastLooksAgainAtEveryObjectItOwnsWithoutPlanningAgain(
      ControlPlane plane, TestNamespace tns) {
    Cluster cluster = new Cluster(plane);
    String ns = tns.name();
    ReleaseController controller = cluster.controller().build();
    Payloads v1 = payloads(ns, "v1");
    controller.cast(spec(ns, v1), v1);

    // plan, confirm, cast(spec) plans again
    cluster.requests().reset();
    controller.plan(spec(ns, v1));
    controller.cast(spec(ns, v1), v1);
    SortedMap<String, Long> noopTwice = cluster.requests().counts();

    cluster.requests().reset();
    Plan noop = controller.plan(spec(ns, v1));
    controller.cast(noop, v1);
    SortedMap<String, Long> noopOnce = cluster.requests().counts();

    Payloads v2 = payloads(ns, "v2");
    cluster.requests().reset();
    controller.plan(spec(ns, v2));
    controller.cast(spec(ns, v2), v2);
    SortedMap<String, Long> changeTwice = cluster.requests().counts();

    Payloads v3 = payloads(ns, "v3");
    cluster.requests().reset();
    Plan change = controller.plan(spec(ns, v3));
    controller.cast(change, v3);
    SortedMap<String, Long> changeOnce = cluster.requests().counts();

    System.out.println("no-op   plan + cast(spec): " + total(noopTwice) + " " + noopTwice);
    System.out.println("no-op   plan + cast(plan): " + total(noopOnce) + " " + noopOnce);
    System.out.println("1 change plan + cast(spec): " + total(changeTwice) + " " + changeTwice);
    System.out.println("1 change plan + cast(plan): " + total(changeOnce) + " " + changeOnce);

    // the reviewed cast observes every object the plan owns again (an unchanged one deleted
    // since would otherwise be recorded as owned while missing): the plan's round and its
    // own, one LIST per kind each; the record, read from the release's namespace, proves the
    // namespace, which is not listed
    assertThat(noopOnce)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("LIST configmaps", 2L),
                Map.entry("LIST deployments", 2L),
                Map.entry("LIST services", 2L),
                // the Secret twice; the record at plan time and under the lease
                Map.entry("LIST secrets", 4L),
                Map.entry("CREATE leases", 1L),
                Map.entry("DELETE leases", 1L),
                // revision DEPLOYED (no object written); the previous one is read superseded
                Map.entry("CREATE secrets", 1L)));
    // cast(spec) observes as much, and plans again under the lease
    assertThat(noopTwice).isEqualTo(noopOnce);
    assertThat(objectWrites(changeOnce)).isEqualTo(1);
    assertThat(objectWrites(changeTwice)).isEqualTo(1);
    assertThat(changeOnce).containsEntry("LIST configmaps", 2L);
    assertThat(total(changeTwice)).isEqualTo(total(changeOnce));
  }
}
