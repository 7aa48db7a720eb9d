package dev.capstan.release;

import static dev.capstan.release.Fixtures.CREDS;
import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SECRET_VALUE;
import static dev.capstan.release.Fixtures.SETTINGS;
import static dev.capstan.release.Fixtures.configMap;
import static dev.capstan.release.Fixtures.creds;
import static dev.capstan.release.Fixtures.payloads;
import static dev.capstan.release.Fixtures.spec;
import static dev.capstan.release.Fixtures.web;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.error.InvalidReleaseException;
import dev.capstan.release.error.StalePlanException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseOptions;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanFingerprint;
import dev.capstan.release.result.CastResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Casting exactly a reviewed plan: what it re-reads, and what it refuses before any write. */
class ReviewedPlanTest {
  private final Fixtures.Harness h = new Fixtures.Harness();
  private final Payloads v1 = payloads(configMap("settings", "v1"), creds("pw"));
  private final Payloads v2 = payloads(configMap("settings", "v2"), creds("pw"));

  @Test
  void aPlanCarriesTheRecordAndTheObservedVersionsItWasComputedFrom() {
    h.cast("app", v1);

    Plan plan = h.controller.plan(spec("app", v2));

    PlanFingerprint f = plan.fingerprint();
    assertThat(f).isNotNull();
    // the planned spec holds the effective hashes: the Secret's keyed per release
    assertThat(f.spec().withResources(List.of()))
        .isEqualTo(spec("app", v2).withResources(List.of()));
    assertThat(f.spec().resources().get(0)).isEqualTo(spec("app", v2).resources().get(0));
    assertThat(f.spec().resources().get(1).contentHash())
        .startsWith("hmac-sha256:")
        .isNotEqualTo(spec("app", v2).resources().get(1).contentHash());
    assertThat(f.secretHashKey())
        .isEqualTo(h.cluster.latestRecord(NS, "app").get().release().secretHashKey());
    assertThat(f.recordRevision()).isEqualTo(1);
    assertThat(f.recordVersion()).isEqualTo(h.cluster.latestRecord(NS, "app").get().version());
    assertThat(f.observed())
        .containsExactly(
            // present, not read: the record read from it proves the home namespace
            new PlanFingerprint.Observed(
                dev.capstan.release.model.ResourceRef.namespace(NS), true, null, null),
            new PlanFingerprint.Observed(SETTINGS, true, "uid-1", "1"),
            new PlanFingerprint.Observed(Fixtures.CREDS, true, "uid-2", "2"));
  }

  @Test
  void castingAReviewedPlanRereadsTheRecordAndEveryObjectItOwns() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v2));
    h.cluster.clearOperations();

    CastResult r = h.controller.cast(plan, v2);

    assertThat(r.plan()).isSameAs(plan);
    assertThat(r.release().revision()).isEqualTo(2);
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(h.cluster.operations())
        .containsExactly(
            "lease:acquire:default/app",
            "record:read:default/app",
            "observe:ConfigMap/default",
            "observe:Secret/default",
            "apply:ConfigMap/default/settings",
            "verify",
            "record:create:default/app#2:deployed",
            "lease:release:default/app"); // revision 1 left as stored: the history reads it
    // superseded
  }

  @Test
  void aReviewedNoOpPlanLooksAgainAtWhatItOwnsAndWritesNothing() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v1));
    h.cluster.clearOperations();

    h.controller.cast(plan, v1);

    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("observe:"))
        .containsExactlyInAnyOrder("observe:ConfigMap/default", "observe:Secret/default");
    assertThat(h.cluster.writes()).containsExactly("verify");
  }

  @Test
  void anObjectPlannedUnchangedThatVanishedSinceMakesThePlanStale() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v2));
    // the plan updates settings and leaves creds unchanged; creds goes before the cast
    h.cluster.deleteOutOfBand(CREDS);
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.cast(plan, v2))
        .isInstanceOf(StalePlanException.class)
        .satisfies(
            e ->
                assertThat(((StalePlanException) e).moved())
                    .containsExactly("Secret/default/creds was deleted since the plan"));
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void aPlannedObjectEditedSinceThePlanRefusesTheCastBeforeAnyWrite() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v2));
    h.cluster.edit(SETTINGS, m -> m.with("data.value", "edited by hand"));
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.cast(plan, v2))
        .isInstanceOf(StalePlanException.class)
        .hasMessage(
            "release default/app: the plan for revision 2 is stale; nothing was written; plan"
                + " again:\n"
                + "  - ConfigMap/default/settings changed since the plan (resourceVersion 1 → 3)")
        .satisfies(
            e ->
                assertThat(((StalePlanException) e).moved())
                    .containsExactly(
                        "ConfigMap/default/settings changed since the plan (resourceVersion 1 →"
                            + " 3)"));
    assertThat(h.cluster.writes()).isEmpty();
    assertThat(h.cluster.operations())
        .containsExactly(
            "lease:acquire:default/app",
            "record:read:default/app",
            "observe:ConfigMap/default",
            "observe:Secret/default",
            "lease:release:default/app");
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void aRecordMovedSinceThePlanRefusesTheCastNamingBothRevisions() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v2));
    h.cast("app", payloads(configMap("settings", "v3"), creds("pw")));
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.cast(plan, v2))
        .isInstanceOf(StalePlanException.class)
        .satisfies(
            e ->
                assertThat(((StalePlanException) e).moved())
                    .containsExactly(
                        "the record moved from revision 1 to 2",
                        "ConfigMap/default/settings changed since the plan (resourceVersion 1 →"
                            + " 3)"));
    assertThat(h.cluster.writes()).isEmpty();
  }

  @Test
  void aDeletedOrRecreatedObjectIsNamed() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v2));
    h.cluster.deleteOutOfBand(SETTINGS);

    assertThatThrownBy(() -> h.controller.cast(plan, v2))
        .isInstanceOf(StalePlanException.class)
        .satisfies(
            e ->
                assertThat(((StalePlanException) e).moved())
                    .containsExactly("ConfigMap/default/settings was deleted since the plan"));

    Plan afterDelete = h.controller.plan(spec("app", v2));
    h.cluster.put(configMap("settings", "other"));
    assertThatThrownBy(() -> h.controller.cast(afterDelete, v2))
        .isInstanceOf(StalePlanException.class)
        .satisfies(
            e ->
                assertThat(((StalePlanException) e).moved())
                    .containsExactly("ConfigMap/default/settings was created since the plan"));
    assertThat(h.controller.get(NS, "app").orElseThrow().revision()).isEqualTo(1);
  }

  @Test
  void payloadsOtherThanThePlannedOnesAreRefusedNamingTheObjectNotTheValue() {
    h.cast("app", v1);
    Plan plan = h.controller.plan(spec("app", v2));
    Payloads otherSecret = payloads(configMap("settings", "v2"), creds(SECRET_VALUE));
    h.cluster.clearOperations();

    assertThatThrownBy(() -> h.controller.cast(plan, otherSecret))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessageContaining(
            "payloads[Secret/default/creds]: differs from the content the plan was computed from;"
                + " give the same payloads as at plan time, or plan again")
        .hasMessageNotContaining(SECRET_VALUE);
    assertThatThrownBy(() -> h.controller.cast(plan, payloads(configMap("settings", "v2"))))
        .isInstanceOf(InvalidReleaseException.class)
        .hasMessageContaining(
            "payloads[Secret/default/creds]: planned, but no payload was given for it");
    assertThat(h.cluster.operations()).isEmpty();
  }

  @Test
  void aPlanWithoutFingerprintCannotBeCast() {
    Plan byHand = new Plan(NS, "app", null, 1, null, List.of());

    assertThatThrownBy(() -> h.controller.cast(byHand, v1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "plan of release default/app has no fingerprint (not made by plan or planRollback),"
                + " so it cannot be cast");
  }

  @Test
  void onlyOptionsThatDoNotShapeThePlanMayChangeAfterReview() {
    Plan plan = h.controller.plan(spec("app", v1));

    Plan atomic = plan.withOptions(ReleaseOptions.defaults().withAtomic(true));

    assertThat(java.util.Objects.requireNonNull(atomic.fingerprint()).spec().options().atomic())
        .isTrue();
    assertThatThrownBy(() -> plan.withOptions(ReleaseOptions.defaults().withAdopt(true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "adopt shapes the plan and must stay as planned (false), not true; plan again with"
                + " it");
  }

  @Test
  void rollbackTakesTheCastOptions() {
    h.cast("app", payloads(web("web:1"), creds("pw")));
    h.cast("app", payloads(web("web:2"), creds("pw")));
    Manifest second = h.cluster.object(Fixtures.WEB).orElseThrow();
    h.cluster.neverReady("web:1", "ImagePullBackOff");

    assertThatThrownBy(
            () -> h.controller.rollback(NS, "app", 1, ReleaseOptions.defaults().withAtomic(true)))
        .isInstanceOf(CastFailedException.class)
        .hasMessageContaining("(atomic: this revision's changes were rolled back)");
    // the whole object as revision 2 left it, its config hash included
    assertThat(h.cluster.object(Fixtures.WEB)).contains(second);
  }

  @Test
  void aReviewedRollbackPlanCastsAsARollback() {
    h.cast("app", payloads(web("web:1"), creds("pw")));
    Manifest first = h.cluster.object(Fixtures.WEB).orElseThrow();
    h.cast("app", payloads(web("web:2"), creds("pw")));
    Plan plan = h.controller.planRollback(NS, "app", 1, ReleaseOptions.defaults());
    assertThat(plan.changes(Action.UPDATE)).extracting(c -> c.ref()).containsExactly(Fixtures.WEB);

    CastResult r = h.controller.cast(plan, h.controller.history(NS, "app").get(1).payloads());

    assertThat(r.release().revision()).isEqualTo(3);
    assertThat(r.release().description()).isEqualTo("rollback to 1");
    // the whole object as revision 1 left it, its config hash included
    assertThat(h.cluster.object(Fixtures.WEB)).contains(first);
  }
}
