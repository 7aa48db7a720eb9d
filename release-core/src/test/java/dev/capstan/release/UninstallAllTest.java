package dev.capstan.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.model.ConfigMapSpec;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Lease;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.model.ReleaseRef;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.UninstallOptions;
import dev.capstan.release.result.UninstallOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ReleaseController#uninstallAll}: each release uninstalled as {@link
 * ReleaseController#uninstall} does, failing on its own; what they read under their leases is read
 * together, once per namespace for the records and once per kind and namespace for their objects.
 */
class UninstallAllTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  UninstallAllTest() {
    h.cluster.addNamespace("team-b");
  }

  /** Release {@code name} of {@code namespace}: a ConfigMap and a Secret, named after it. */
  private static ReleaseInput app(String namespace, String name) {
    Payloads payloads =
        Payloads.of(
            ConfigMapSpec.of(namespace, name + "-config", Map.of("value", "1")),
            SecretSpec.of(namespace, name + "-secret", Map.of("token", "s3cr3t-" + name)));
    return new ReleaseInput(ReleaseSpec.of(namespace, name, payloads), payloads);
  }

  private void install(String... qualified) {
    List<ReleaseInput> inputs = new ArrayList<>();
    for (ReleaseRef r : refs(qualified)) {
      inputs.add(app(r.namespace(), r.name()));
    }
    h.controller.castAll(inputs, 2);
  }

  private static List<ReleaseRef> refs(String... qualified) {
    List<ReleaseRef> out = new ArrayList<>();
    for (String q : qualified) {
      int slash = q.indexOf('/');
      out.add(new ReleaseRef(q.substring(0, slash), q.substring(slash + 1)));
    }
    return out;
  }

  private static List<String> summary(List<UninstallOutcome> outcomes) {
    List<String> out = new ArrayList<>();
    for (UninstallOutcome o : outcomes) {
      if (o instanceof UninstallOutcome.Uninstalled u) {
        out.add(
            u.release()
                + (u.result().purged() ? " purged" : " uninstalled")
                + " deleting "
                + u.result().deleted().size());
      } else if (o instanceof UninstallOutcome.Failed f) {
        out.add(f.release() + " failed " + f.error().getClass().getSimpleName());
      }
    }
    return out;
  }

  @Test
  void eachGroupTakesItsLeasesThenReadsItsRecordsAndObjectsTogether() {
    install("default/a", "default/b", "default/c", "team-b/d", "team-b/e");
    h.cluster.clearOperations();

    List<UninstallOutcome> outcomes =
        h.controller.uninstallAll(
            refs("default/a", "default/b", "default/c", "team-b/d", "team-b/e"),
            UninstallOptions.defaults(),
            3);

    assertThat(summary(outcomes))
        .containsExactly(
            "default/a uninstalled deleting 2",
            "default/b uninstalled deleting 2",
            "default/c uninstalled deleting 2",
            "team-b/d uninstalled deleting 2",
            "team-b/e uninstalled deleting 2");
    List<String> ops = h.cluster.operations();
    // one group (2 per uninstall at once, 3 at once: up to 6): every lease first
    assertThat(ops.subList(0, 5))
        .containsExactlyInAnyOrder(
            "lease:acquire:default/a",
            "lease:acquire:default/b",
            "lease:acquire:default/c",
            "lease:acquire:team-b/d",
            "lease:acquire:team-b/e");
    // under them, the records of each namespace's releases in one read, and what they own in one
    // observation per kind and namespace
    assertThat(ops.subList(5, 7))
        .containsExactly("record:read:default/{a,b,c}", "record:read:team-b/{d,e}");
    assertThat(ops.subList(7, 11))
        .containsExactlyInAnyOrder(
            "observe:ConfigMap/default",
            "observe:Secret/default",
            "observe:ConfigMap/team-b",
            "observe:Secret/team-b");
    // then each uninstall from those reads alone: its deletes, its tombstone, its lease given up
    assertThat(ops.subList(11, ops.size()))
        .filteredOn(op -> op.startsWith("observe") || op.startsWith("record:read"))
        .isEmpty();
    assertThat(ops.subList(11, ops.size()))
        .filteredOn(op -> op.contains("default/a"))
        .containsExactly(
            "delete:Secret/default/a-secret",
            "delete:ConfigMap/default/a-config",
            "record:update:default/a#1:uninstalled",
            "lease:release:default/a");
    assertThat(h.cluster.objects()).isEmpty();
    assertThat(h.controller.get("team-b", "e").orElseThrow().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
  }

  @Test
  void eachReleaseFailsOnItsOwnAndTheOthersAreUninstalled() {
    install("default/a", "default/b", "default/c");
    // b is held by another caster; c was never cast; a goes
    h.cluster.putLease(
        "default",
        "b",
        new Lease("caster-b", Fixtures.T0, Fixtures.T0.plus(Duration.ofMinutes(2))));
    h.controller.uninstall("default", "c", UninstallOptions.defaults().withPurge(true));

    List<UninstallOutcome> outcomes =
        h.controller.uninstallAll(
            refs("default/a", "default/b", "default/c", "default/ghost"),
            UninstallOptions.defaults().withPurge(true),
            3);

    assertThat(summary(outcomes))
        .containsExactly(
            "default/a purged deleting 2",
            "default/b failed ReleaseLockedException",
            "default/c failed ReleaseNotFoundException",
            "default/ghost failed ReleaseNotFoundException");
    assertThat(h.controller.history("default", "a")).isEmpty();
    assertThat(h.controller.get("default", "b").orElseThrow().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.objects())
        .containsExactlyInAnyOrder(
            ResourceRef.of(Kind.CONFIG_MAP, "default", "b-config"),
            ResourceRef.of(Kind.SECRET, "default", "b-secret"));
    // a release without a record leaves no lease behind
    assertThat(h.cluster.heldLease("default", "ghost")).isEmpty();
    assertThat(h.cluster.heldLease("default", "a")).isEmpty();
  }

  @Test
  void anUninstalledReleaseIsPurgedWithoutObservingAnything() {
    install("default/a");
    h.controller.uninstall("default", "a", UninstallOptions.defaults());
    h.cluster.clearOperations();

    List<UninstallOutcome> outcomes =
        h.controller.uninstallAll(
            refs("default/a"), UninstallOptions.defaults().withPurge(true), 1);

    assertThat(summary(outcomes)).containsExactly("default/a purged deleting 0");
    assertThat(h.cluster.operations()).noneMatch(op -> op.startsWith("observe"));
    assertThat(h.controller.history("default", "a")).isEmpty();
  }

  @Test
  void aReleaseGivenTwiceIsRefusedBeforeAnyRead() {
    install("default/a");
    h.cluster.clearOperations();

    assertThatThrownBy(
            () ->
                h.controller.uninstallAll(
                    refs("default/a", "default/a"), UninstallOptions.defaults(), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("release default/a is given twice (inputs 0 and 1)");
    assertThatThrownBy(
            () -> h.controller.uninstallAll(refs("default/a"), UninstallOptions.defaults(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parallelism must be at least 1: 0");
    assertThat(h.cluster.operations()).isEmpty();
  }
}
