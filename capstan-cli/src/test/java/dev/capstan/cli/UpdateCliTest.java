package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives {@code capstan update} against the in-memory demo platform (MCP Runtime v0.4.0). */
class UpdateCliTest {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  @BeforeEach
  void manifest() throws IOException {
    Files.copy(Path.of("../examples/platform/v0.5.0.yaml"), dir.resolve("v0.5.0.yaml"));
  }

  private int run(String... args) {
    return runWith(Map.of(), args);
  }

  private int runWith(Map<String, @Nullable String> env, String... args) {
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void dryRunPlansWithoutChangingThenApplyUpdatesAndARerunIsANoop() throws IOException {
    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--to", "v0.5.0", "--dry-run"))
        .isZero();
    assertThat(out)
        .contains("Version:      v0.4.0 -> v0.5.0")
        .contains(
            "Dry run (plan only; no CRD apply, builds, or rollouts were attempted): 5 component(s)"
                + " would be updated.");

    assertThat(run("update", "--release-manifest", "v0.5.0.yaml"))
        .isEqualTo(ExitCode.NOT_CONFIRMED);
    assertThat(err).contains("pass --yes");

    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--yes", "-o", "json")).isZero();
    JsonNode doc = new ObjectMapper().readTree(out);
    assertThat(doc.get("dryRun").asBoolean()).isFalse();
    assertThat(doc.get("plan").get("targetVersion").asText()).isEqualTo("v0.5.0");
    assertThat(doc.get("result").get("failed").asBoolean()).isFalse();
    assertThat(doc.get("result").get("workloads"))
        .extracting(w -> w.get("deployment").asText() + "=" + w.get("status").asText())
        .containsExactly(
            "mcp-runtime-operator-controller-manager=updated",
            "mcp-platform-api=updated",
            "mcp-runtime-api=updated",
            "mcp-ui=updated");
    assertThat(err).contains("capstan: Rolled out mcp-platform/mcp-ui");

    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--yes")).isZero();
    assertThat(out).endsWith("Platform is up to date; nothing to roll out.\n");
  }

  @Test
  void onlyLimitsTheUpdateAndUnknownNamesAreInvalid() {
    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--only", "ui", "--yes"))
        .isZero();
    assertThat(out)
        .endsWith(
            """
            Update result:
            WORKLOAD             COMPONENTS  STATUS   DETAIL
            mcp-platform/mcp-ui  ui          updated  -
            """);

    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--only", "traefik"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).contains("--only has unknown component(s) traefik");
  }

  @Test
  void badFlagsGiveOneLineAndExitCode2() {
    assertThat(run("update")).isEqualTo(ExitCode.INVALID);
    assertThat(err.lines().count()).isOne();
    assertThat(run("update", "--to", "v0.6.0", "--release-manifest", "v0.5.0.yaml"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).contains("v0.6.0").contains("v0.5.0");
    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--timeout", "0s"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(run("update", "--release-manifest", "missing.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--catalog", "nope.yaml"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).isEqualTo("capstan: --catalog: no such file: 'nope.yaml'\n");
  }

  @Test
  void aDowngradeIsBlockedWithExitCode3EvenInDryRun() throws IOException {
    Files.writeString(
        dir.resolve("v0.3.0.yaml"),
        Files.readString(dir.resolve("v0.5.0.yaml")).replace("v0.5.0", "v0.3.0"));

    assertThat(run("update", "--release-manifest", "v0.3.0.yaml", "--dry-run"))
        .isEqualTo(ExitCode.BLOCKED);
    assertThat(out).contains("downgrade v0.4.0 -> v0.3.0; pass --allow-downgrade to permit");
  }

  @Test
  void buildNeedsABuilderOnPathOrANamedOneThatExistsElseExitCode2() {
    // The test's environment has no PATH, so no builder can be found.
    assertThat(run("update", "--release-manifest", "v0.5.0.yaml", "--build", "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: invalid update options: --build needs an image builder and none was found on"
                + " PATH (looked for docker buildx, podman, buildah); install one or pass"
                + " --builder\n");
    assertThat(
            run(
                "update",
                "--release-manifest",
                "v0.5.0.yaml",
                "--build",
                "--builder",
                "kan\u001bko",
                "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: invalid update options: --builder must be docker, podman or buildah:"
                + " 'kan\\u001bko'\n");
    assertThat(
            run(
                "update",
                "--release-manifest",
                "v0.5.0.yaml",
                "--build",
                "--builder",
                "podman",
                "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo("capstan: invalid update options: --builder podman: podman is not on PATH\n");
    assertThat(
            run(
                "update",
                "--release-manifest",
                "v0.5.0.yaml",
                "--build",
                "--source",
                "no-such-dir",
                "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: invalid update options: --source must be a directory to build from:"
                + " 'no-such-dir'\n");
    assertThat(out).isEmpty();
  }

  @Test
  void aDockerWithoutBuildxIsNoBuilder() throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path docker = bin.resolve("docker");
    Files.writeString(
        docker, "#!/bin/sh\necho \"docker: 'buildx' is not a docker command.\" >&2\nexit 1\n");
    Files.setPosixFilePermissions(docker, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, @Nullable String> env = Map.of("PATH", bin.toString());

    assertThat(
            runWith(
                env,
                "update",
                "--release-manifest",
                "v0.5.0.yaml",
                "--build",
                "--builder",
                "docker",
                "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: invalid update options: --builder docker: docker buildx is not available"
                + " (docker buildx version failed)\n");
    assertThat(runWith(env, "update", "--release-manifest", "v0.5.0.yaml", "--build", "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).contains("--build needs an image builder and none was found on PATH");
  }
}
