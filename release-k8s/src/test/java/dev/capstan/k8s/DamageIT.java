package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.capstan.common.ManualClock;
import dev.capstan.k8s.testing.ControlPlane;
import dev.capstan.k8s.testing.ControlPlaneTest;
import dev.capstan.k8s.testing.TestNamespace;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.result.ReleaseListing;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.util.PatchUtils;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Damage stays local on the real control plane: a record Secret patched to garbage fails only its
 * release (the namespace lists it as unreadable beside the healthy one), and the command its
 * message gives mends it; a takeover on a clock that did not move since the last record tells
 * whether the dead holder recorded its attempt by the attempt id its Lease and its record share.
 */
@ControlPlaneTest
class DamageIT {
  /** A holder dying mid-operation: an {@link Error} abandons the lease, as a crash leaves it. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash() {
      super("simulated crash");
    }
  }

  private static Payloads config(String ns, String name, String value) {
    return Payloads.of(ConfigMapSpec.of(ns, name, Map.of("value", value)));
  }

  @Test
  void aCorruptRecordFailsOnlyItsReleaseAndTheKubectlCommandItNamesMendsIt(
      ControlPlane plane, TestNamespace tns) throws Exception {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ReleaseController releases = cluster.controller().build();
    releases.cast(ReleaseSpec.of(ns, "a", config(ns, "a", "1")), config(ns, "a", "1"));
    releases.cast(ReleaseSpec.of(ns, "b", config(ns, "b", "1")), config(ns, "b", "1"));
    releases.cast(ReleaseSpec.of(ns, "b", config(ns, "b", "2")), config(ns, "b", "2"));
    // the probe of the report: data.release of the head patched to garbage
    PatchUtils.patch(
        V1Secret.class,
        () ->
            cluster
                .core
                .patchNamespacedSecret(
                    "capstan.release.v1.b.v2",
                    ns,
                    new V1Patch("{\"data\":{\"release\":\"Z2FyYmFnZQ==\"}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        cluster.client());

    List<ReleaseListing> listed = releases.listing(ns, false);

    assertThat(listed).extracting(ReleaseListing::name).containsExactly("a", "b");
    assertThat(listed.get(0)).isInstanceOf(ReleaseListing.Recorded.class);
    ReleaseListing.Unreadable b = (ReleaseListing.Unreadable) listed.get(1);
    assertThat(b.revision()).isEqualTo(2);
    assertThat(b.problem())
        .startsWith(
            "release "
                + ns
                + "/b: the record of revision 2 cannot be read (release record Secret"
                + " capstan.release.v1.b.v2 fails verification")
        .endsWith(
            "; to recover, delete that record (kubectl -n "
                + ns
                + " delete secret -l owner=capstan,name=b,version=2): the release then reads as"
                + " revision 1, and the next cast records its revision 2 again");
    assertThatThrownBy(() -> releases.get(ns, "b")).hasMessage(b.problem());
    // and in the listing of every namespace (release list -A), as in its own
    assertThat(
            releases.listingInAllNamespaces(false).stream()
                .filter(l -> l.namespace().equals(ns))
                .toList())
        .isEqualTo(listed);

    // follow the advice: the command's label selector, as kubectl sends it
    Matcher command = Pattern.compile("delete secret -l (\\S+)\\)").matcher(b.problem());
    assertThat(command.find()).isTrue();
    cluster.core.deleteCollectionNamespacedSecret(ns).labelSelector(command.group(1)).execute();

    assertThat(releases.listing(ns, false))
        .allMatch(l -> l instanceof ReleaseListing.Recorded)
        .hasSize(2);
    assertThat(releases.get(ns, "b").orElseThrow().revision()).isEqualTo(1);
    releases.cast(ReleaseSpec.of(ns, "b", config(ns, "b", "3")), config(ns, "b", "3"));
    assertThat(releases.get(ns, "b").orElseThrow())
        .extracting(Release::revision, Release::status)
        .containsExactly(2, ReleaseStatus.DEPLOYED);
  }

  @Test
  void aTakeoverOnAClockThatDidNotMoveTellsARecordedAttemptFromAnInterruptedOneByItsId(
      ControlPlane plane, TestNamespace tns) {
    String ns = tns.name();
    Cluster cluster = new Cluster(plane);
    ManualClock clock = ManualClock.at(Instant.now());
    Payloads v1 = Payloads.of(ConfigMapSpec.of(ns, "x", Map.of("v", "1")));
    Payloads v2 =
        Payloads.of(
            ConfigMapSpec.of(ns, "x", Map.of("v", "2")),
            ConfigMapSpec.of(ns, "y", Map.of("v", "2")));
    ReleaseSpec spec1 = ReleaseSpec.of(ns, "app", v1);
    ReleaseSpec spec2 = ReleaseSpec.of(ns, "app", v2);
    cluster.controller().holder("a").clock(clock).build().cast(spec1, v1);

    // b takes the lease at the very instant revision 1 was recorded, writes x and dies
    ReleaseController b =
        cluster
            .controller()
            .holder("b")
            .clock(clock)
            .parallelism(1)
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.Done d && d.action() != Action.REFERENCE) {
                    throw new Crash();
                  }
                })
            .build();
    assertThatThrownBy(() -> b.cast(spec2, v2)).isInstanceOf(Crash.class);
    clock.advance(Duration.ofMinutes(1));

    ReleaseController c = cluster.controller().holder("c").clock(clock).build();
    c.cast(spec2, v2);

    assertThat(c.history(ns, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(3, ReleaseStatus.DEPLOYED),
            tuple(2, ReleaseStatus.FAILED),
            tuple(1, ReleaseStatus.SUPERSEDED));
    assertThat(c.history(ns, "app").get(1).failure())
        .startsWith("interrupted: the lease of b expired at ");

    // d records its revision at that instant, then dies before giving the lease up: recorded
    // once, not again by the next holder
    ReleaseController d =
        cluster
            .controller()
            .holder("d")
            .clock(clock)
            .listener(
                e -> {
                  if (e instanceof ReleaseEvent.RecordSaved s
                      && s.status() == ReleaseStatus.DEPLOYED) {
                    throw new Crash();
                  }
                })
            .build();
    assertThatThrownBy(() -> d.cast(spec1, v1)).isInstanceOf(Crash.class);
    clock.advance(Duration.ofMinutes(1));
    c.cast(spec1, v1);

    assertThat(c.history(ns, "app"))
        .extracting(Release::revision, Release::status)
        .containsExactly(
            tuple(5, ReleaseStatus.DEPLOYED),
            tuple(4, ReleaseStatus.SUPERSEDED),
            tuple(3, ReleaseStatus.SUPERSEDED),
            tuple(2, ReleaseStatus.FAILED),
            tuple(1, ReleaseStatus.SUPERSEDED));
  }
}
