package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input at the command line: one line on stderr, exit code 2, nothing written, no stack trace
 * unless {@code --debug}, every echoed value escaped.
 */
class BadInputCliTest {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  private int run(String... args) {
    return runWith(Terminal.none(), args);
  }

  private int runWith(Terminal terminal, String... args) {
    CliRun run = CliRun.of(terminal, Map.of("WEB_DB_PASSWORD", "pw")::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  /** The in-memory cluster holds no release: the state file, if any, records none. */
  private void assertNothingWritten() {
    assertThat(run("release", "list", "-n", "demo", "--all")).isZero();
    assertThat(out).isEqualTo("NAME  REVISION  STATUS  VERSION  UPDATED\n");
  }

  @Test
  void aParallelismBelowOneIsRefusedWithExitCode2NamingTheFlag() {
    assertThat(run("release", "uninstall", "web", "-n", "demo", "--parallelism", "0", "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).isEqualTo("capstan: --parallelism must be at least 1: 0\n");
    assertNothingWritten();
  }

  /** A bad -n is one line, exit 2, for every command: not "not found", not a line per object. */
  @Test
  void aNamespaceThatIsNoDnsLabelIsRefusedWithExitCode2NamingTheFlag() {
    assertThat(run("release", "get", "web", "-n", "BAD NS")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: -n: Namespace name must be a DNS-1123 label (lower-case alphanumerics and"
                + " '-', starting and ending with an alphanumeric, at most 63 characters):"
                + " 'BAD NS'\n");
    assertThat(run("release", "cast", "web", "-n", "x\ny", "-f", "web.yaml"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).startsWith("capstan: -n: Namespace name must be").endsWith(": 'x\\ny'\n");
    assertThat(err.lines()).hasSize(1);
    assertNothingWritten();
  }

  @Test
  void aDeleteParallelismBelowOneIsRefusedWithExitCode2NamingTheFlag() {
    assertThat(
            run("release", "uninstall", "web", "-n", "demo", "--delete-parallelism", "0", "--yes"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).isEqualTo("capstan: --delete-parallelism must be at least 1: 0\n");
    assertNothingWritten();
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void devZeroIsRefusedWithExitCode2BeforeAnyRead() {
    assertThat(run("release", "cast", "-f", "/dev/zero", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: -f: '/dev/zero' is not a regular file (a device, pipe or socket); give a"
                + " file or a directory\n");
    assertThat(out).isEmpty();
    assertNothingWritten();
  }

  @Test
  void aDirectoryWithoutManifestsOrAWhereAFileBelongsIsRefusedWithExitCode2() throws IOException {
    Files.createDirectory(dir.resolve("releases"));
    // release -f takes a directory of plain manifests (as kubectl apply -f does): an empty one is
    // refused, naming what is missing
    assertThat(run("release", "cast", "-f", "releases", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: releases: 2 problems:\n"
                + "  - a release of plain manifests needs a name (capstan release cast NAME -f"
                + " releases)\n"
                + "  - directory holds no .yaml, .yml or .json file: 'releases'\n");
    assertThat(run("update", "--catalog", "releases", "--to", "v1.0.0"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err).isEqualTo("capstan: --catalog: 'releases' is a directory; give a file\n");
    assertNothingWritten();
  }

  @Test
  void tenThousandLevelsOfYamlAndJsonExitWith2AndOneLine() throws IOException {
    Files.writeString(dir.resolve("deep.yaml"), "spec: " + "[".repeat(10_000) + "]".repeat(10_000));
    Files.writeString(
        dir.resolve("deep.json"),
        "{\"spec\": " + "{\"a\": ".repeat(10_000) + "1" + "}".repeat(10_001));

    assertThat(run("release", "cast", "-f", "deep.yaml", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: deep.yaml: nesting is deeper than 100 levels (the limit) at line 1,"
                + " column 106\n");
    assertThat(run("release", "cast", "-f", "deep.json", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: deep.json: nesting is deeper than 100 levels (the limit) at line 1,"
                + " column 604\n");
    assertThat(run("update", "--release-manifest", "deep.yaml", "--to", "v1.0.0", "--dry-run"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err.lines()).hasSize(1);
    assertThat(err).contains("nesting is deeper than 100 levels (the limit)");
    assertNothingWritten();
  }

  @Test
  void anEscByteAndANewlineInANameAppearEscaped() throws IOException {
    Files.writeString(
        dir.resolve("evil.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: "x\\e[2J\\nRelease demo/web revision 9 deployed."}
        """);
    assertThat(run("release", "cast", "-f", "evil.yaml", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: evil.yaml: metadata: release name must be a DNS-1123 label of at most 53"
                + " characters (lower-case alphanumerics and '-', starting and ending with an"
                + " alphanumeric): 'x\\u001b[2J\\nRelease demo/web revision 9 deployed.'\n");
    assertThat(run("release", "get", "a\u001b[2Jb", "-n", "demo")).isEqualTo(ExitCode.FAILED);
    assertThat(err).isEqualTo("capstan: release demo/a\\u001b[2Jb not found\n");
  }

  @Test
  void aVersionWithAnEscByteAndANewlineIsShownEscapedInGetAndHistory() throws IOException {
    Files.writeString(
        dir.resolve("v.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: web, namespace: demo, version: "1.0\\e[2J\\nforged"}
        spec:
          configMaps:
          - {name: settings, data: {a: b}}
        """);
    assertThat(run("release", "cast", "-f", "v.yaml", "--yes")).as(err).isZero();
    assertThat(run("release", "history", "web", "-n", "demo")).isZero();
    assertThat(out).contains(" 1.0\\u001b[2J\\nforged ").doesNotContain("\u001b");
    assertThat(run("release", "get", "web", "-n", "demo")).isZero();
    assertThat(out).contains("Version:     1.0\\u001b[2J\\nforged\n").doesNotContain("\u001b");
  }

  @Test
  void aPlanTheApiServerWouldRefuseExitsWith2AndShowsNoPlan() throws IOException {
    Files.writeString(
        dir.resolve("big.yaml"),
        "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: bad, namespace: demo}\n"
            + "spec:\n  configMaps:\n  - name: big\n    data: {blob: "
            + "x".repeat(2 << 20)
            + "}\n");
    assertThat(run("release", "plan", "-f", "big.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(out).isEmpty();
    assertThat(err)
        .isEqualTo(
            "capstan: invalid release demo/bad (2 problems; nothing was written):\n"
                + "  - ConfigMap demo/big: data must total at most 1048576 bytes (1 MiB): 2097152\n"
                + "  - ConfigMap demo/big: the object serialized must be at most 1572864 bytes (1.5"
                + " MiB, the API server's request limit): 2097254\n");
    assertThat(run("release", "cast", "-f", "big.yaml", "--yes")).isEqualTo(ExitCode.INVALID);
    assertThat(out).isEmpty();
    assertNothingWritten();
  }

  @Test
  void debugAddsTheStackTraceAfterTheOneLine() throws IOException {
    Files.createDirectory(dir.resolve("releases"));
    assertThat(run("--debug", "release", "cast", "-f", "releases")).isEqualTo(ExitCode.INVALID);
    assertThat(err.lines().findFirst()).contains("capstan: releases: 2 problems:");
    assertThat(err).contains("\tat dev.capstan.");
  }

  @Test
  void aStateFileThatIsADirectoryIsOneLineWithExitCode2() throws IOException {
    Files.createDirectories(dir.resolve("state-dir"));
    assertThat(run("--state", "state-dir", "release", "list", "-n", "demo"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err.lines()).hasSize(1);
    assertThat(err).startsWith("capstan: state file ").doesNotContain("\tat ");
  }

  @Test
  void aStateFileCutShortSaysWhereInOneLineWithoutJacksonsSourceExcerpt() throws IOException {
    Files.writeString(dir.resolve("cut.json"), "{\"format\":");
    assertThat(run("--state", "cut.json", "release", "list", "-n", "demo"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: state file "
                + dir.resolve("cut.json")
                + " is not a capstan in-memory state (delete it to start over): not valid JSON at"
                + " line 1, column 11: Unexpected end-of-input within/between Object entries\n");
  }

  @Test
  void anErrorAtTheEdgeIsOneLineWithExitCode1AndTheTraceOnlyWithDebug() throws IOException {
    Files.copy(Path.of("../examples/releases", "web-v1.yaml"), dir.resolve("web-v1.yaml"));
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    Terminal overflowing =
        new Terminal() {
          @Override
          public boolean interactive() {
            return true;
          }

          @Override
          public String ask(String question) {
            throw new StackOverflowError();
          }
        };
    assertThat(runWith(overflowing, "release", "uninstall", "web", "-n", "demo"))
        .isEqualTo(ExitCode.FAILED);
    assertThat(err)
        .isEqualTo(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n"
                + "capstan: unexpected error: StackOverflowError (run with --debug for the stack"
                + " trace)\n");
    assertThat(runWith(overflowing, "--debug", "release", "uninstall", "web", "-n", "demo"))
        .isEqualTo(ExitCode.FAILED);
    assertThat(err).contains("java.lang.StackOverflowError\n\tat ");
  }
}
