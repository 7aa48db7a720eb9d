package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.release.error.CastFailedException;
import dev.capstan.release.model.Manifest;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.plan.Action;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
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
}
