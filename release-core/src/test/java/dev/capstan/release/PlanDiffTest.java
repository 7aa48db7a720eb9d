package dev.capstan.release;

import static dev.capstan.release.Fixtures.NS;
import static dev.capstan.release.Fixtures.SECRET_VALUE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.ReleaseSpec;
import dev.capstan.release.model.ResourceRef;
import dev.capstan.release.model.SecretSpec;
import dev.capstan.release.model.ServiceSpec;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import dev.capstan.release.result.CastResult;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Field-level diffs in plans a person reviews ({@link ReleaseController#planWithDiff}). */
class PlanDiffTest {
  private final Fixtures.Harness h = new Fixtures.Harness();

  private static Payloads v1() {
    return Payloads.of(
        ServiceSpec.builder(NS, "web")
            .image("ghcr.io/acme/web:1.0.0")
            .port("http", 8080)
            .env("DB_HOST", "db")
            .label("tier", "frontend")
            .build(),
        SecretSpec.of(NS, "db", Map.of("password", "old-password", "user", "app")));
  }

  private static Payloads v2() {
    return Payloads.of(
        ServiceSpec.builder(NS, "web")
            .image("ghcr.io/acme/web:1.1.0")
            .port("http", 8080)
            .env("DB_HOST", "db")
            .env("LOG_LEVEL", "debug")
            .build(),
        SecretSpec.of(NS, "db", Map.of("password", SECRET_VALUE, "user", "app")));
  }

  @Test
  void anUpdateShowsTheChangedImageTheAddedEnvVarAndTheRemovedLabel() {
    h.controller.cast(ReleaseSpec.of(NS, "web", v1()), v1());
    h.cluster.clearOperations();

    Plan plan = h.controller.planWithDiff(ReleaseSpec.of(NS, "web", v2()), v2());

    assertThat(PlanRenderer.text(plan))
        .isEqualTo(
            """
            Plan for release default/web: revision 2 (from 1)
              = reference  Namespace//default
              ~ update     Secret/default/db
                  ~ data.password: (changed)
              ~ update     apps/Deployment/default/web
                  - metadata.labels.tier: "frontend"
                  - spec.template.metadata.labels.tier: "frontend"
                  + spec.template.spec.containers[name=web].env[name=LOG_LEVEL]: {"name":"LOG_LEVEL","value":"debug"}
                  - spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.0.0"
                  + spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.1.0"
              ~ update     Service/default/web
                  - metadata.labels.tier: "frontend"
            Summary: 3 update, 1 reference
            """);
    assertThat(h.cluster.operations())
        .filteredOn(op -> op.startsWith("dry-run:"))
        .containsExactly(
            "dry-run:Secret/default/db",
            "dry-run:apps/Deployment/default/web",
            "dry-run:Service/default/web");
  }

  @Test
  void theJsonPlanCarriesTheDiffAndNoSecretValue() throws Exception {
    h.controller.cast(ReleaseSpec.of(NS, "web", v1()), v1());

    Plan plan = h.controller.planWithDiff(ReleaseSpec.of(NS, "web", v2()), v2());
    String json = PlanRenderer.json(plan);
    JsonNode changes = new ObjectMapper().readTree(json).get("changes");

    assertThat(changes.get(1).get("diff").toString())
        .isEqualTo("[{\"op\":\"replace\",\"path\":\"data.password\",\"secret\":true}]");
    assertThat(changes.get(2).get("diff").get(3).toString())
        .isEqualTo(
            "{\"op\":\"replace\",\"path\":\"spec.template.spec.containers[name=web].image\","
                + "\"before\":\"ghcr.io/acme/web:1.0.0\",\"after\":\"ghcr.io/acme/web:1.1.0\"}");
    for (String text : new String[] {json, PlanRenderer.text(plan), plan.toString()}) {
      assertThat(text)
          .doesNotContain(SECRET_VALUE)
          .doesNotContain("old-password")
          .doesNotContain(base64(SECRET_VALUE))
          .doesNotContain(base64("old-password"));
    }
  }

  @Test
  void aNoOpPlanAndCreatesAskForNoDryRun() {
    Plan first = h.controller.planWithDiff(ReleaseSpec.of(NS, "web", v1()), v1());
    h.controller.cast(ReleaseSpec.of(NS, "web", v1()), v1());
    Plan noOp = h.controller.planWithDiff(ReleaseSpec.of(NS, "web", v1()), v1());

    assertThat(first.changes()).allSatisfy(c -> assertThat(c.diff()).isEmpty());
    assertThat(noOp.changesNothing()).isTrue();
    assertThat(h.cluster.operations()).noneMatch(op -> op.startsWith("dry-run:"));
  }

  @Test
  void aCastAsksForNoDryRunAndItsPlanHasNoDiff() {
    h.controller.cast(ReleaseSpec.of(NS, "web", v1()), v1());

    CastResult result = h.controller.cast(ReleaseSpec.of(NS, "web", v2()), v2());

    assertThat(result.plan().changes()).allSatisfy(c -> assertThat(c.diff()).isEmpty());
    assertThat(h.cluster.operations()).noneMatch(op -> op.startsWith("dry-run:"));
  }

  @Test
  void aRepairShowsTheDriftedFieldGoingBack() {
    h.controller.cast(ReleaseSpec.of(NS, "web", v1()), v1());
    h.cluster.edit(ResourceRef.of(Kind.DEPLOYMENT, NS, "web"), m -> m.with("spec.replicas", 5));

    Plan plan = h.controller.planWithDiff(ReleaseSpec.of(NS, "web", v1()), v1());

    assertThat(PlanRenderer.text(plan))
        .contains(
            """
              ! repair     apps/Deployment/default/web  (drift: field spec.replicas set by edit)
                  - spec.replicas: 5
                  + spec.replicas: 1
            """);
  }

  private static String base64(String value) {
    return Base64.getEncoder().encodeToString(value.getBytes(UTF_8));
  }
}
