package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hooks through the command line, on the in-memory target: the plan lists them, {@code release get}
 * and {@code history} show how they ended, {@code release test} runs the test hooks.
 */
class HooksCliTest {
  @TempDir Path dir;

  private String out = "";

  private static final String RELEASE =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: settings}
      data: {level: info}
      ---
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: migrate
        annotations: {helm.sh/hook: "pre-install,pre-upgrade", helm.sh/hook-weight: "-1"}
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{name: migrate, image: acme/migrate:1}]
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: smoke
        annotations: {helm.sh/hook: test, helm.sh/hook-delete-policy: hook-succeeded}
      spec:
        restartPolicy: Never
        containers: [{name: smoke, image: acme/smoke:1}]
      """;

  private static final String TEST_PLAN =
      """
      Hooks the test runs, from revision 1's record, written with your rights:
        ⚓ test Pod/demo/smoke (weight 0; delete hook-succeeded)
      """;

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, args);
    out = run.out();
    return run.code();
  }

  @Test
  void thePlanListsTheHooksGetAndHistoryShowThemAndReleaseTestRunsTheTests() throws IOException {
    Files.writeString(dir.resolve("web.yaml"), RELEASE);

    assertThat(run("release", "plan", "web", "-n", "demo", "-f", "web.yaml")).isZero();
    assertThat(out)
        .contains(
            """
              + create     ConfigMap/demo/settings
            Hooks the cast runs:
              ⚓ pre-install batch/Job/demo/migrate (weight -1; delete before-hook-creation)
            Summary: 1 create, 1 reference
            """);

    assertThat(run("release", "cast", "web", "-n", "demo", "--yes", "-f", "web.yaml")).isZero();
    assertThat(run("release", "get", "web", "-n", "demo")).isZero();
    assertThat(out)
        .contains("Owns:        1 object(s)\n  ConfigMap/demo/settings\n")
        .containsPattern(
            "Hooks: +1 run: 1 succeeded\n  pre-install batch/Job/demo/migrate succeeded  \\([0-9.]+m?s\\)\n");

    assertThat(run("release", "test", "web", "-n", "demo")).isZero();
    assertThat(out)
        .matches(Pattern.quote(TEST_PLAN) + "PASSED  Pod/demo/smoke  \\([0-9.]+m?s\\)\n");

    assertThat(run("release", "get", "web", "-n", "demo", "-o", "json")).isZero();
    JsonNode hooks = new ObjectMapper().readTree(out).get("hooks");
    assertThat(hooks).hasSize(2);
    assertThat(hooks.get(1).get("phase").asText()).isEqualTo("test");
    assertThat(hooks.get(1).get("key").asText()).isEqualTo("Pod/demo/smoke");
    assertThat(hooks.get(1).get("status").asText()).isEqualTo("succeeded");

    assertThat(run("release", "history", "web", "-n", "demo")).isZero();
    assertThat(out)
        .startsWith("REVISION  STATUS    VERSION  DESCRIPTION  UPDATED")
        .contains("HOOKS")
        .contains("2 run: 2 succeeded");
  }

  @Test
  void releaseTestSaysWhatItWaitsForAndATimeOutPointsAtItsOwnTimeout() throws IOException {
    Files.writeString(dir.resolve("web.yaml"), RELEASE);
    assertThat(run("release", "cast", "web", "-n", "demo", "--yes", "-f", "web.yaml")).isZero();
    // the in-memory cluster's smoke test never completes, as one whose pod never starts
    Path state = dir.resolve(".capstan/state.json");
    ObjectMapper json = new ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode tree =
        (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(state.toFile());
    ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("releases"))
        .putObject("neverReady")
        .put("acme/smoke:1", "ContainerCreating");
    json.writeValue(state.toFile(), tree);

    CliRun test =
        CliRun.of(
            Terminal.none(),
            Map.<String, String>of()::get,
            dir,
            "release",
            "test",
            "web",
            "-n",
            "demo",
            "--timeout",
            "10s");

    assertThat(test.code()).isEqualTo(1);
    assertThat(test.err())
        .contains(
            "capstan: demo/web: waiting up to 10s for test hook Pod/demo/smoke to complete\n");
    assertThat(test.out())
        .matches(
            Pattern.quote(TEST_PLAN)
                + "FAILED  Pod/demo/smoke  \\([0-9.]+m?s\\): not complete within its timeout of 10s:"
                + " Pod demo/smoke: ContainerCreating; test again with a longer timeout \\(the"
                + " CLI's release test --timeout\\), or give it a longer one with the annotation"
                + " capstan.dev/hook-timeout and cast first\n");
  }

  @Test
  void uninstallListsTheRecordsDeleteHooksAndRunsOneOutsideTheNamespaceOnlyWhenNamed()
      throws IOException {
    Files.writeString(
        dir.resolve("web.yaml"),
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        data: {level: info}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata:
          name: grant
          annotations: {helm.sh/hook: pre-delete}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
        subjects: [{kind: ServiceAccount, name: tenant, namespace: demo}]
        """);
    assertThat(run("release", "cast", "web", "-n", "demo", "--yes", "-f", "web.yaml")).isZero();
    String plan =
        """
        Hooks the uninstall runs, from revision 1's record, written with your rights:
          ⚓ pre-delete rbac.authorization.k8s.io/ClusterRoleBinding//grant (weight 0; delete\
         before-hook-creation)  ⚠ cluster-scoped
        """;

    CliRun refused =
        CliRun.of(
            Terminal.none(),
            Map.<String, String>of()::get,
            dir,
            "release",
            "uninstall",
            "web",
            "-n",
            "demo",
            "--yes");

    assertThat(refused.code()).isEqualTo(ExitCode.REFUSED);
    assertThat(refused.out()).isEqualTo(plan);
    assertThat(refused.err())
        .contains(
            "uninstall of demo/web refused: revision 1's record lists pre-delete hook"
                + " rbac.authorization.k8s.io/ClusterRoleBinding//grant (cluster-scoped), outside"
                + " the release's namespace demo; a record is as trusted as whoever may write the"
                + " release's records, and a hook is written with your rights: check it, then"
                + " name it to run it (--allow-hook KEY; withAllowedHooks); nothing was changed");

    assertThat(
            run(
                "release",
                "uninstall",
                "web",
                "-n",
                "demo",
                "--yes",
                "-o",
                "json",
                "--allow-hook",
                "rbac.authorization.k8s.io/ClusterRoleBinding//grant"))
        .isZero();
    JsonNode hooks = new ObjectMapper().readTree(out).get("hooks");
    assertThat(hooks).hasSize(1);
    assertThat(hooks.get(0).get("phase").asText()).isEqualTo("pre-delete");
    assertThat(hooks.get(0).get("key").asText())
        .isEqualTo("rbac.authorization.k8s.io/ClusterRoleBinding//grant");
    assertThat(hooks.get(0).get("outside").asText()).isEqualTo("cluster-scoped");
    assertThat(new ObjectMapper().readTree(out).get("deleted").get(0).asText())
        .isEqualTo("ConfigMap/demo/settings");
  }
}
