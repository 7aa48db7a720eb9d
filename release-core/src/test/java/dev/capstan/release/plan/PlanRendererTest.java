package dev.capstan.release.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.release.model.Kind;
import dev.capstan.release.model.ReleaseIdentity;
import dev.capstan.release.model.ResourceRef;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanRendererTest {
  private static final String H = "sha256:" + "0".repeat(64);

  private static ResourceRef ref(Kind type, String name) {
    return ResourceRef.of(type, "default", name);
  }

  private static final Plan PLAN =
      new Plan(
          "default",
          "app",
          "id-1",
          3,
          2,
          List.of(
              new PlannedChange(
                  ResourceRef.namespace("default"), Action.REFERENCE, null, null, null, false),
              new PlannedChange(
                  ref(Kind.PERSISTENT_VOLUME_CLAIM, "data"),
                  Action.ADOPT,
                  "re-adopt, retained earlier",
                  H,
                  null,
                  false),
              new PlannedChange(ref(Kind.CONFIG_MAP, "new"), Action.CREATE, null, H, null, false),
              new PlannedChange(
                  ref(Kind.CONFIG_MAP, "same"), Action.UNCHANGED, null, H, null, false),
              new PlannedChange(ref(Kind.SECRET, "creds"), Action.UPDATE, null, H, null, false),
              new PlannedChange(
                  ref(Kind.DEPLOYMENT, "web"),
                  Action.REPAIR,
                  "drift: live content differs from what revision 2 applied",
                  H,
                  null,
                  false),
              new PlannedChange(
                  ref(Kind.PERSISTENT_VOLUME_CLAIM, "old"),
                  Action.RETAIN,
                  "reclaim policy RETAIN: un-stamped, data kept for re-adoption",
                  null,
                  null,
                  false),
              new PlannedChange(
                  ref(Kind.CONFIG_MAP, "legacy"), Action.PRUNE, null, null, null, false)));

  @Test
  void textIsATerraformStyleBlockWithoutUnchangedLines() {
    assertThat(PlanRenderer.text(PLAN))
        .isEqualTo(
            """
            Plan for release default/app: revision 3 (from 2)
              = reference  Namespace//default
              ↪ adopt      PersistentVolumeClaim/default/data  (re-adopt, retained earlier)
              + create     ConfigMap/default/new
              ~ update     Secret/default/creds
              ! repair     apps/Deployment/default/web  (drift: live content differs from what revision 2 applied)
              ⊘ retain     PersistentVolumeClaim/default/old  (reclaim policy RETAIN: un-stamped, data kept for re-adoption)
              - prune      ConfigMap/default/legacy  ⚠ destructive
            Summary: 1 create, 1 update, 1 repair, 1 unchanged, 1 adopt, 1 prune, 1 retain, 1 reference
            """);
  }

  @Test
  void textCanShowUnchangedLinesAndExplainsConflicts() {
    Plan conflict =
        new Plan(
            "default",
            "app",
            null,
            1,
            null,
            List.of(
                new PlannedChange(
                    ref(Kind.CONFIG_MAP, "x"),
                    Action.CONFLICT,
                    "owned by release default/other; never taken over",
                    null,
                    new ReleaseIdentity("default", "other", "o"),
                    false)));

    assertThat(PlanRenderer.text(PLAN, true)).contains("    unchanged  ConfigMap/default/same\n");
    assertThat(PlanRenderer.text(conflict))
        .isEqualTo(
            """
            Plan for release default/app: revision 1 (first install)
              ✗ conflict   ConfigMap/default/x  (owned by release default/other; never taken over)
            Summary: 1 conflict
            Not applyable: 1 conflict must be resolved first.
            """);
  }

  @Test
  void jsonListsEveryChangeWithItsActionKeyAndReason() throws Exception {
    JsonNode json = new ObjectMapper().readTree(PlanRenderer.json(PLAN));

    assertThat(json.get("release").asText()).isEqualTo("app");
    assertThat(json.get("revision").asInt()).isEqualTo(3);
    assertThat(json.get("previousRevision").asInt()).isEqualTo(2);
    assertThat(json.get("applyable").asBoolean()).isTrue();
    assertThat(json.get("needsConfirmation").asBoolean()).isTrue();
    assertThat(json.get("summary").get("prune").asInt()).isEqualTo(1);
    assertThat(json.get("changes")).hasSize(8);
    JsonNode prune = json.get("changes").get(7);
    assertThat(prune.get("action").asText()).isEqualTo("prune");
    assertThat(prune.get("key").asText()).isEqualTo("ConfigMap/default/legacy");
    assertThat(prune.get("destructive").asBoolean()).isTrue();
    assertThat(json.get("changes").get(5).get("reason").asText())
        .isEqualTo("drift: live content differs from what revision 2 applied");
    assertThat(PlanRenderer.json(PLAN)).doesNotContain("sha256:");
  }
}
