package dev.capstan.release;

import static dev.capstan.release.Fixtures.DATA;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.error.DestructiveChangeRefusedException;
import dev.capstan.release.event.Outcome;
import dev.capstan.release.event.ReleaseEvent;
import dev.capstan.release.model.DeleteBudget;
import dev.capstan.release.model.DeleteGate;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.VolumeSpec;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.DeleteRefusal;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.result.CastResult;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The destructive-change gate: a plan that deletes an object of a protected kind, or more objects
 * than the budget allows, is refused before any write listing what would go, and cast once each is
 * approved by name; a reviewed plan carries its approvals.
 */
class DeleteGateTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static final String ADVICE =
      "approve each by name to cast it: the CLI's --approve-delete KEY (once per object), or"
          + " spec.options.approveDeletes in the release file or Release, or"
          + " ReleaseOptions.deleteGate().approving(..)";

  private static ResourceRef map(String name) {
    return ResourceRef.of(Kind.CONFIG_MAP, NS, name);
  }

  private static Payloads maps(String... names) {
    return Payloads.of(
        java.util.Arrays.stream(names)
            .map(n -> (dev.capstan.release.model.ResourceSpec) configMap(n, "v"))
            .toList());
  }

  private static ReleaseSpec spec(Payloads p, UnaryOperator<DeleteGate> gate) {
    ReleaseSpec spec = ReleaseSpec.of(NS, "app", p);
    ReleaseOptions o = spec.options();
    return spec.withOptions(o.withDeleteGate(gate.apply(o.deleteGate())));
  }

  private CastResult cast(Payloads p, UnaryOperator<DeleteGate> gate) {
    return h.controller.cast(spec(p, gate), p);
  }

  private static Payloads withVolume(boolean volume) {
    return volume
        ? Payloads.of(configMap("a", "v"), volume("data", VolumeSpec.ReclaimPolicy.DELETE))
        : Payloads.of(configMap("a", "v"));
  }

  @Test
  void aPlanPruningAProtectedClaimIsRefusedBeforeAnyWriteListingIt() {
    cast(withVolume(true), g -> g);
    h.cluster.clearOperations();
    h.events.clear();

    assertThatThrownBy(() -> cast(withVolume(false), g -> g))
        .isInstanceOfSatisfying(
            DestructiveChangeRefusedException.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "release default/app: the plan deletes 1 object(s) the delete gate keeps;"
                          + " nothing was written; "
                          + ADVICE
                          + "\n  - PersistentVolumeClaim/default/data (prune):"
                          + " PersistentVolumeClaim is a protected kind");
              assertThat(e.refusal().refused()).containsExactly(DATA);
              assertThat(e.plan().changes(Action.PRUNE))
                  .extracting(c -> c.ref())
                  .containsExactly(DATA);
            });
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.operations()).noneMatch(o -> o.startsWith("record:save"));
    assertThat(h.cluster.object(DATA)).isPresent();
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(1);
    assertThat(h.events)
        .filteredOn(ReleaseEvent.Finished.class::isInstance)
        .map(ReleaseEvent.Finished.class::cast)
        .extracting(ReleaseEvent.Finished::outcome)
        .containsExactly(Outcome.REFUSED);
  }

  @Test
  void approvedByNameTheClaimIsPruned() {
    cast(withVolume(true), g -> g);
    h.cluster.clearOperations();

    CastResult r = cast(withVolume(false), g -> g.approving(List.of(DATA)));

    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(h.cluster.writes())
        .containsExactly("verify", "delete:PersistentVolumeClaim/default/data");
    assertThat(h.cluster.object(DATA)).isEmpty();
  }

  @Test
  void aGateWithoutProtectedKindsLetsTheClaimGo() {
    cast(withVolume(true), g -> g);
    h.cluster.clearOperations();

    cast(withVolume(false), g -> g.withProtectedKinds(List.of()));

    assertThat(h.cluster.writes())
        .containsExactly("verify", "delete:PersistentVolumeClaim/default/data");
  }

  @Test
  void aRetainedClaimIsNoDeleteAndPassesTheGate() {
    Payloads retained =
        Payloads.of(configMap("a", "v"), volume("data", VolumeSpec.ReclaimPolicy.RETAIN));
    cast(retained, g -> g);
    h.cluster.clearOperations();

    CastResult r = cast(withVolume(false), g -> g);

    assertThat(r.plan().changes(Action.RETAIN)).extracting(c -> c.ref()).containsExactly(DATA);
    assertThat(h.cluster.object(DATA)).isPresent();
  }

  @Test
  void aPlanOverItsCountBudgetIsRefusedListingEveryUnapprovedDelete() {
    cast(maps("a", "b", "c", "d"), g -> g);
    h.cluster.clearOperations();

    assertThatThrownBy(() -> cast(maps("a", "b"), g -> g.withBudget(DeleteBudget.count(1))))
        .isInstanceOfSatisfying(
            DestructiveChangeRefusedException.class,
            e ->
                assertThat(e.refusal().reasons())
                    .containsExactly(
                        "ConfigMap/default/c (prune): the plan deletes 2 object(s) unapproved,"
                            + " over the budget of 1 delete(s)",
                        "ConfigMap/default/d (prune): the plan deletes 2 object(s) unapproved,"
                            + " over the budget of 1 delete(s)"));
    assertThat(h.cluster.writes()).isEmpty();

    // one approved by name: one unapproved delete left, within the budget
    cast(maps("a", "b"), g -> g.withBudget(DeleteBudget.count(1)).approving(List.of(map("c"))));

    assertThat(h.cluster.writes())
        .startsWith("verify")
        .containsExactlyInAnyOrder(
            "verify", "delete:ConfigMap/default/c", "delete:ConfigMap/default/d");
  }

  @Test
  void aShareBudgetIsOfTheObjectsTheReleaseOwnedBeforeTheCast() {
    cast(maps("a", "b", "c", "d"), g -> g);

    // 50% of 4 owned: 2 may go, 3 may not
    assertThatThrownBy(() -> cast(maps("a"), g -> g.withBudget(DeleteBudget.share(50))))
        .isInstanceOfSatisfying(
            DestructiveChangeRefusedException.class,
            e -> {
              assertThat(e.refusal().deletes()).isEqualTo(3);
              assertThat(e.refusal().owned()).isEqualTo(4);
              assertThat(e.refusal().reasons().get(0))
                  .isEqualTo(
                      "ConfigMap/default/b (prune): the plan deletes 3 object(s) unapproved, over"
                          + " the budget of 50% of the release's 4 object(s)");
            });
    h.cluster.clearOperations();

    cast(maps("a", "b"), g -> g.withBudget(DeleteBudget.share(50)));

    assertThat(h.cluster.writes())
        .startsWith("verify")
        .containsExactlyInAnyOrder(
            "verify", "delete:ConfigMap/default/c", "delete:ConfigMap/default/d");
  }

  @Test
  void aReviewedPlanCarriesItsApprovalThroughThePlanFile() {
    cast(withVolume(true), g -> g);
    Payloads next = withVolume(false);
    Plan approved = h.controller.plan(spec(next, g -> g.approving(List.of(DATA))), next);
    Plan unapproved = h.controller.plan(spec(next, g -> g), next);
    Plan fromFile = PlanCodec.decode(PlanCodec.encode(approved));
    h.cluster.clearOperations();

    assertThat(DeleteRefusal.of(unapproved)).isPresent();
    assertThatThrownBy(
            () -> h.controller.cast(PlanCodec.decode(PlanCodec.encode(unapproved)), next))
        .isInstanceOf(DestructiveChangeRefusedException.class);
    assertThat(h.cluster.operations()).noneMatch(o -> o.startsWith("lease:"));
    // cast with the options given at cast (no approval): the plan's approval holds
    CastResult r = h.controller.cast(fromFile.withOptions(ReleaseOptions.defaults()), next);

    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(h.cluster.writes())
        .containsExactly("verify", "delete:PersistentVolumeClaim/default/data");
  }

  @Test
  void anApprovalGivenAtCastAddsToAReviewedPlan() {
    cast(withVolume(true), g -> g);
    Payloads next = withVolume(false);
    Plan plan = h.controller.plan(spec(next, g -> g), next);
    h.cluster.clearOperations();

    h.controller.cast(
        plan.withOptions(
            ReleaseOptions.defaults()
                .withDeleteGate(DeleteGate.defaults().approving(List.of(DATA)))),
        next);

    assertThat(h.cluster.writes())
        .containsExactly("verify", "delete:PersistentVolumeClaim/default/data");
  }

  @Test
  void aReviewedPlanThatChangedIsStaleWhateverItApproves() {
    cast(withVolume(true), g -> g);
    Payloads next = withVolume(false);
    Plan approved = h.controller.plan(spec(next, g -> g.approving(List.of(DATA))), next);
    h.cluster.edit(DATA, o -> o.with("metadata.labels.touched", "yes"));
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.cast(approved, next))
        .isInstanceOf(dev.capstan.release.error.StalePlanException.class);
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void badPolicyValuesAreRefusedNamingTheRuleAndTheValue() {
    assertThatThrownBy(() -> DeleteBudget.parse("ten"))
        .hasMessage("delete budget must be a count (10) or a share of the release (20%): 'ten'");
    assertThatThrownBy(() -> DeleteBudget.parse("120%"))
        .hasMessage(
            "delete budget must be a count of at least 0 or a share from 0% to 100%: '120%'");
    assertThatThrownBy(() -> DeleteGate.defaults().withProtectedKinds(List.of("persistent volume")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'persistent volume'");
    assertThat(DeleteGate.defaults().protectedKinds())
        .containsExactly(
            "Namespace",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "apiextensions.k8s.io/CustomResourceDefinition");
  }
}
