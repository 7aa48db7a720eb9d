package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.Deque;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code release plan --out} and {@code release cast --plan}: a saved plan holds no secret, casts
 * exactly, and is refused with a clear line and exit code when stale or given other files.
 */
class ReviewedPlanCliTest {
  private static final String PASSWORD = "pw-from-env-S3CR3T";

  @TempDir Path dir;

  private final Map<String, String> env = Map.of("WEB_DB_PASSWORD", PASSWORD);
  private final Deque<String> answers = new ArrayDeque<>();
  private boolean interactive;
  private String out = "";
  private String err = "";

  private final Terminal terminal =
      new Terminal() {
        @Override
        public boolean interactive() {
          return interactive;
        }

        @Override
        public @Nullable String ask(String question) {
          return answers.poll();
        }
      };

  @BeforeEach
  void releaseFiles() throws IOException {
    Path examples = Path.of("../examples/releases");
    Files.copy(examples.resolve("web-v1.yaml"), dir.resolve("web-v1.yaml"));
    Files.copy(examples.resolve("web-v2.yaml"), dir.resolve("web-v2.yaml"));
  }

  private int run(String... args) {
    CliRun run = CliRun.of(terminal, env::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void aSavedPlanHoldsNoSecretAndCastsExactly() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();

    assertThat(run("release", "plan", "-f", "web-v2.yaml", "--out", "plan.json")).isZero();
    assertThat(err)
        .isEqualTo(
            "capstan: plan saved to 'plan.json'; cast exactly it with: capstan release cast -f"
                + " 'web-v2.yaml' --plan 'plan.json'\n");
    String file = Files.readString(dir.resolve("plan.json"));
    assertThat(file)
        .startsWith("{\n  \"capstanPlan\" : 1,")
        .doesNotContain(PASSWORD)
        .doesNotContain(
            Base64.getEncoder().encodeToString(PASSWORD.getBytes(StandardCharsets.UTF_8)));

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--plan", "plan.json", "--yes"))
        .as(err)
        .isZero();
    assertThat(out)
        .startsWith("Plan for release demo/web: revision 2 (from 1)\n")
        .contains("  - prune      ConfigMap/demo/web-legacy  ⚠ destructive\n")
        .endsWith("Release demo/web revision 2 deployed.\n");
  }

  /**
   * {@code --out} creates the folders it names (the docs' tour saves to {@code examples/target},
   * which a fresh checkout lacks); a path it cannot write is refused with the reason, not a class
   * name.
   */
  @Test
  void aPlanIsSavedIntoFoldersNotThereYetAndAnUnwritablePathSaysWhy() throws IOException {
    assertThat(run("release", "plan", "-f", "web-v1.yaml", "--out", "target/plans/v1.json"))
        .as(err)
        .isZero();
    assertThat(dir.resolve("target/plans/v1.json")).isRegularFile();

    Files.writeString(dir.resolve("a-file"), "x");
    assertThat(run("release", "plan", "-f", "web-v1.yaml", "--out", "a-file/v1.json")).isEqualTo(2);
    assertThat(err)
        .isEqualTo(
            "capstan: --out: cannot write 'a-file/v1.json': '"
                + dir.resolve("a-file").toAbsolutePath()
                + "' already exists\n");
  }

  /**
   * Each command reads the in-memory cluster's state file and writes it back: the objects a plan
   * saw keep their uid and resourceVersion across those commands, so a plan that another release's
   * cast did not touch is cast, not refused as re-created or changed.
   */
  @Test
  void aPlanStaysCastableAcrossCommandsThatLeaveItsObjectsAlone() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(run("release", "plan", "-f", "web-v2.yaml", "--out", "plan.json")).isZero();
    Files.writeString(
        dir.resolve("other.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a-settings}\ndata: {k: v}\n");
    // another release's objects, stored before web's in the state file
    assertThat(run("release", "cast", "other", "-n", "demo", "-f", "other.yaml", "--yes"))
        .as(err)
        .isZero();

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--plan", "plan.json", "--yes"))
        .as(err)
        .isZero();
    assertThat(err).doesNotContain("re-created").doesNotContain("changed since the plan");
    assertThat(out).endsWith("Release demo/web revision 2 deployed.\n");
  }

  @Test
  void aStalePlanIsRefusedWithExitCode6AndNothingIsWritten() {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(run("release", "plan", "-f", "web-v2.yaml", "--out", "plan.json")).isZero();
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero(); // revision 2, a no-op

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--plan", "plan.json", "--yes"))
        .isEqualTo(ExitCode.STALE);
    assertThat(err)
        .isEqualTo(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n"
                + "capstan: release demo/web: the plan for revision 2 is stale; nothing was written;"
                + " plan again:\n"
                + "  - the record moved from revision 1 to 2\n");
    assertThat(run("release", "get", "web", "-n", "demo")).isZero();
    assertThat(out).contains("Revision:    2\n");
  }

  @Test
  void otherFilesGarbageAndOptionsThatShapeThePlanAreRefusedWithExitCode2() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(run("release", "plan", "-f", "web-v2.yaml", "--out", "plan.json")).isZero();

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--plan", "plan.json", "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .startsWith(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n"
                + "capstan: invalid release demo/web (3 problems; nothing was written):\n")
        .contains("  - payloads[ConfigMap/demo/web-legacy]: not in the plan\n")
        .contains(
            "payloads[ConfigMap/demo/web-settings]: differs from the content the plan was"
                + " computed from; give the same payloads as at plan time, or plan again")
        .doesNotContain(PASSWORD)
        .doesNotContain("\tat ");

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--plan", "plan.json", "--adopt"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: adopt shapes the plan and must stay as planned (false), not true; plan"
                + " again with it\n");

    Files.writeString(dir.resolve("garbage.json"), "{\"capstanPlan\": 7, \"plan\": {}}");
    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--plan", "garbage.json"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: plan file capstanPlan must be 1: '7' (written by a different Capstan"
                + " version; plan again)\n");

    assertThat(run("release", "get", "web", "-n", "demo")).isZero();
    assertThat(out).contains("Revision:    1\n");
  }

  @Test
  void confirmationCastsThePlanItShowed() {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    interactive = true;
    answers.add("yes");

    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isZero();

    assertThat(out)
        .startsWith("Plan for release demo/web: revision 2 (from 1)\n")
        .endsWith("Release demo/web revision 2 deployed.\n");
  }

  @Test
  void rollbackTakesTheCastOptionsAndWithDiffShowsItsReviewedPlanFirst() {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes")).isZero();

    assertThat(
            run(
                "release",
                "rollback",
                "web",
                "-n",
                "demo",
                "--to",
                "1",
                "--atomic",
                "--adopt",
                "--timeout",
                "2m",
                "--yes",
                "--diff"))
        .as(err)
        .isZero();

    assertThat(ReleaseCliTest.hashesHidden(out))
        .isEqualTo(
            """
            Plan for release demo/web: revision 3 (from 2)
              = reference  Namespace//demo
              + create     ConfigMap/demo/web-legacy
              ~ update     ConfigMap/demo/web-settings
                  - data.log-level: "debug"
                  + data.log-level: "info"
              ~ update     apps/Deployment/demo/web  (config changed: ConfigMap/demo/web-settings)
                  - spec.template.metadata.annotations["capstan.dev/config-hash"]: "sha256:…"
                  + spec.template.metadata.annotations["capstan.dev/config-hash"]: "sha256:…"
                  - spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.1.0"
                  + spec.template.spec.containers[name=web].image: "ghcr.io/acme/web:1.0.0"
            Summary: 1 create, 2 update, 3 unchanged, 1 reference
            Release demo/web rolled back to revision 1 as revision 3.
            """);
  }

  @Test
  void rollbackWithYesAloneShowsThePlanMadeUnderItsLeaseWithoutDiffs() {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes")).isZero();

    assertThat(run("release", "rollback", "web", "-n", "demo", "--atomic", "--yes"))
        .as(err)
        .isZero();

    assertThat(ReleaseCliTest.hashesHidden(out))
        .isEqualTo(
            """
            Plan for release demo/web: revision 3 (from 2)
              = reference  Namespace//demo
              + create     ConfigMap/demo/web-legacy
              ~ update     ConfigMap/demo/web-settings
              ~ update     apps/Deployment/demo/web  (config changed: ConfigMap/demo/web-settings)
            Summary: 1 create, 2 update, 3 unchanged, 1 reference
            Release demo/web rolled back to revision 1 as revision 3.
            """);
  }
}
