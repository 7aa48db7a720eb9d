package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.OwnershipStamp;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.port.Precondition;
import dev.capstan.release.result.CastResult;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Replace on immutable change: an update the API server refuses because it changes an immutable
 * field (a Deployment's selector) fails the cast, saying how to opt in; opted in (the object's
 * annotation, or the release's option), the plan shows it as a destructive {@code replace} and the
 * cast deletes the object and creates it again. Never by default.
 */
class ReplaceOnImmutableTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static Manifest web(String app, boolean optIn) {
    return yaml(
        ("{apiVersion: apps/v1, kind: Deployment, metadata: {name: web"
                + (optIn ? ", annotations: {capstan.dev/replace-on-immutable: \"true\"}" : "")
                + "}, spec: {replicas: 1, selector: {matchLabels: {app: APP}},"
                + " template: {metadata: {labels: {app: APP}},"
                + " spec: {containers: [{name: web, image: \"acme/web:1\"}]}}}}")
            .replace("APP", app));
  }

  private CastResult cast(Manifest m, boolean releaseOptIn) {
    Payloads p = Payloads.of(m);
    ReleaseSpec spec = ReleaseSpec.of(NS, "app", p);
    return h.controller.cast(
        spec.withOptions(spec.options().withReplaceOnImmutable(releaseOptIn)), p);
  }

  @Test
  void aSelectorChangeIsRefusedByDefaultSayingHowToOptInAndTheObjectIsLeftAlone() {
    cast(web("web", false), false);
    h.cluster.clearOperations();

    assertThatThrownBy(() -> cast(web("web-v2", false), false))
        .isInstanceOfSatisfying(
            CastFailedException.class,
            e ->
                assertThat(e.result().release().failure())
                    .endsWith(
                        "Deployment \"web\" is invalid: spec.selector: field is immutable; the API"
                            + " server cannot update apps/Deployment/default/web in place: to"
                            + " delete and create it again, give it the annotation"
                            + " capstan.dev/replace-on-immutable: \"true\" (or cast with"
                            + " replaceOnImmutable)"));
    assertThat(h.cluster.writes()).noneMatch(w -> w.startsWith("delete:"));
    assertThat(h.cluster.object(web("web", false).ref()).orElseThrow().get("spec.selector"))
        .isEqualTo(java.util.Map.of("matchLabels", java.util.Map.of("app", "web")));
  }

  @Test
  void theObjectsAnnotationFollowedThePlanShowsADestructiveReplaceAndTheCastReplacesIt() {
    cast(web("web", true), false);
    h.cluster.clearOperations();

    Plan plan =
        h.controller.plan(
            ReleaseSpec.of(NS, "app", Payloads.of(web("web-v2", true))),
            Payloads.of(web("web-v2", true)));
    assertThat(plan.changes(Action.REPLACE)).hasSize(1);
    // destructive: a person confirms it, as a prune
    assertThat(plan.needsConfirmation()).isTrue();
    CastResult r = cast(web("web-v2", true), false);

    assertThat(r.plan().changes(Action.REPLACE))
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.reason())
                    .isEqualTo("immutable spec.selector changed: deleted and created again"));
    assertThat(PlanRenderer.text(r.plan()))
        .contains(
            "  ± replace    apps/Deployment/default/web  (immutable spec.selector changed: deleted"
                + " and created again)  ⚠ destructive\n");
    assertThat(h.cluster.writes())
        .containsSubsequence(
            "delete:apps/Deployment/default/web", "apply:apps/Deployment/default/web");
    assertThat(h.cluster.object(web("web", true).ref()).orElseThrow().get("spec.selector"))
        .isEqualTo(java.util.Map.of("matchLabels", java.util.Map.of("app", "web-v2")));
    assertThat(r.release().status()).isEqualTo(ReleaseStatus.DEPLOYED);
  }

  @Test
  void theReleasesOptionReplacesAnObjectThatDidNotOptInAlone() {
    cast(web("web", false), true);

    CastResult r = cast(web("web-v2", false), true);

    assertThat(r.plan().changes(Action.REPLACE)).hasSize(1);
    assertThat(h.cluster.object(web("web", false).ref()).orElseThrow().get("spec.selector"))
        .isEqualTo(java.util.Map.of("matchLabels", java.util.Map.of("app", "web-v2")));
  }

  /**
   * An object being adopted was never the release's: when the API server refuses its update as
   * immutable (a field the plan could not see), it is not deleted and created again, whatever the
   * options say; the cast fails naming it and the object is left as it was, unstamped.
   */
  @Test
  void anAdoptedObjectRefusedAsImmutableIsNeverDeletedAndCreatedAgain() {
    Manifest hand = web("web", false);
    h.cluster.put(hand);
    ForwardingOrchestrator immutable =
        new ForwardingOrchestrator(h.cluster) {
          @Override
          public void apply(Manifest object, @Nullable OwnershipStamp stamp, Precondition p) {
            throw new dev.capstan.common.ClusterException(
                "apply",
                "Deployment",
                NS,
                "web",
                422,
                "Deployment.apps \"web\" is invalid: spec.template.spec.volumes[0]: field is"
                    + " immutable",
                null);
          }
        };
    ReleaseController controller = ReleaseController.builder(immutable, h.cluster).build();
    Manifest mine = web("web", false).with("spec.replicas", 2);
    Payloads p = Payloads.of(mine);
    ReleaseSpec spec = ReleaseSpec.of(NS, "app", p).withAdopt(true);
    ReleaseSpec both = spec.withOptions(spec.options().withReplaceOnImmutable(true));

    assertThatThrownBy(() -> controller.cast(both, p))
        .isInstanceOf(CastFailedException.class)
        .hasMessageContaining(
            "the API server cannot update apps/Deployment/"
                + NS
                + "/web in place, and an object being adopted is never deleted and created"
                + " again: change it to match the release, or delete it yourself, then cast"
                + " again");
    assertThat(h.cluster.object(hand.ref())).contains(hand);
    assertThat(h.cluster.stamp(hand.ref())).isEmpty();
  }
}
