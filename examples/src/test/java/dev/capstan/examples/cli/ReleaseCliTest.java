package dev.capstan.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives every {@code capstan release} subcommand against the in-memory target. */
class ReleaseCliTest {
  @TempDir Path dir;

  private final Map<String, String> env = Map.of("WEB_DB_PASSWORD", "pw-from-env");
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
    Path examples = Path.of("releases");
    Files.copy(examples.resolve("web-v1.yaml"), dir.resolve("web-v1.yaml"));
    Files.copy(examples.resolve("web-v2.yaml"), dir.resolve("web-v2.yaml"));
  }

  private int run(String... args) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int code =
        new Cli(
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8),
                terminal,
                env::get,
                dir)
            .run(args);
    out = o.toString(StandardCharsets.UTF_8);
    err = e.toString(StandardCharsets.UTF_8);
    return code;
  }

  private JsonNode json() throws IOException {
    return new ObjectMapper().readTree(out);
  }

  @Test
  void planShowsTheFirstInstallAndChangesNothing() {
    assertThat(run("release", "plan", "-f", "web-v1.yaml")).isZero();

    assertThat(out)
        .isEqualTo(
            """
            Plan for release demo/web: revision 1 (first install)
              = reference  namespace//demo
              + create     volume/demo/web-data
              + create     configmap/demo/web-legacy
              + create     configmap/demo/web-settings
              + create     secret/demo/web-db
              + create     service/demo/web
            Summary: 5 create, 1 reference
            """);
    assertThat(run("release", "list", "-n", "demo")).isZero();
    assertThat(out).isEqualTo("NAME  REVISION  STATUS  VERSION  UPDATED\n");
  }

  @Test
  void castUpgradeHistoryRollbackAndUninstall() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    assertThat(out).endsWith("Release demo/web revision 1 deployed.\n");
    assertThat(err)
        .contains("capstan: demo/web: recorded revision 1 as pending")
        .contains("capstan: demo/web: create secret/demo/web-db done")
        .contains("capstan: demo/web: recorded revision 1 as deployed");

    // v2 prunes: no terminal and no --yes refuses, nothing changes
    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isEqualTo(ExitCode.NOT_CONFIRMED);
    assertThat(out).contains("  - prune      configmap/demo/web-legacy  ⚠ destructive");
    assertThat(err)
        .contains("confirmation needed and no terminal to ask at; pass --yes to proceed.");
    assertThat(run("release", "get", "web", "-n", "demo")).isZero();
    assertThat(out).contains("Revision:    1\n");

    // at a terminal, only the exact answer yes proceeds
    interactive = true;
    answers.add("y");
    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isEqualTo(ExitCode.NOT_CONFIRMED);
    answers.add("yes");
    assertThat(run("release", "cast", "-f", "web-v2.yaml")).isZero();
    assertThat(out).endsWith("Release demo/web revision 2 deployed.\n");
    interactive = false;

    assertThat(run("release", "history", "web", "-n", "demo")).isZero();
    assertThat(out.lines())
        .hasSize(3)
        .element(1)
        .asString()
        .startsWith("2         deployed    1.1.0    -");
    assertThat(out.lines().toList().get(2)).startsWith("1         superseded  1.0.0    -");

    assertThat(run("release", "rollback", "web", "-n", "demo", "--to", "1", "-o", "json")).isZero();
    JsonNode rolled = json();
    assertThat(rolled.get("release").get("revision").asInt()).isEqualTo(3);
    assertThat(rolled.get("release").get("description").asText()).isEqualTo("rollback to 1");
    assertThat(rolled.get("plan").get("summary").get("create").asInt()).isEqualTo(1);

    assertThat(run("release", "uninstall", "web", "-n", "demo")).isEqualTo(ExitCode.NOT_CONFIRMED);
    assertThat(run("release", "uninstall", "web", "-n", "demo", "--yes")).isZero();
    assertThat(out)
        .isEqualTo(
            """
            deleted  service/demo/web
            deleted  secret/demo/web-db
            deleted  configmap/demo/web-legacy
            deleted  configmap/demo/web-settings
            retained volume/demo/web-data (data kept)
            Release demo/web uninstalled (history kept; --purge removes it).
            """);
    assertThat(run("release", "list", "-n", "demo")).isZero();
    assertThat(out.lines()).hasSize(1);
    assertThat(run("release", "list", "-n", "demo", "--all", "-o", "json")).isZero();
    assertThat(json().get(0).get("status").asText()).isEqualTo("uninstalled");
    assertThat(json().get(0).get("retained").get(0).asText()).isEqualTo("volume/demo/web-data");

    // the reinstall takes the retained volume back without --adopt (an adoption: confirmed)
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--yes")).isZero();
    assertThat(out)
        .contains("  ↪ adopt      volume/demo/web-data  (re-adopt volume retained earlier)");
    assertThat(run("release", "uninstall", "web", "-n", "demo", "--purge", "--yes")).isZero();
    assertThat(run("release", "get", "web", "-n", "demo")).isEqualTo(ExitCode.FAILED);
    assertThat(err).isEqualTo("capstan: release demo/web not found\n");
  }

  @Test
  void jsonOutputsHaveTheDocumentedShapeAndNoSecrets() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--dry-run", "-o", "json")).isZero();
    assertThat(json().get("dryRun").asBoolean()).isTrue();
    assertThat(json().get("plan").get("changes")).hasSize(6);

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "-o", "json")).isZero();
    JsonNode cast = json();
    assertThat(cast.get("dryRun").asBoolean()).isFalse();
    assertThat(cast.get("release").get("status").asText()).isEqualTo("deployed");
    assertThat(cast.get("release").get("owns")).hasSize(5);
    assertThat(cast.get("release").get("owns").get(3).get("key").asText())
        .isEqualTo("secret/demo/web-db");
    assertThat(cast.get("release").get("owns").get(3).has("contentHash")).isFalse();

    assertThat(run("release", "get", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json().get("revision").asInt()).isEqualTo(1);
    assertThat(run("release", "history", "web", "-n", "demo", "-o", "json")).isZero();
    assertThat(json()).hasSize(1);
    assertThat(run("release", "plan", "-f", "web-v1.yaml", "-o", "json")).isZero();
    assertThat(json().get("changesNothing").asBoolean()).isTrue();
    assertThat(Files.readString(dir.resolve(".capstan/state.json"))).contains("\"web-db\"");
    assertThat(out + err).doesNotContain("pw-from-env");
  }

  @Test
  void aConflictIsRefusedWithExitCode3AndNothingIsApplied() throws IOException {
    Files.writeString(
        dir.resolve("other.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: other, namespace: demo}
        spec:
          configMaps: [{name: web-settings, data: {x: "1"}}]
        """);
    assertThat(run("release", "cast", "-f", "other.yaml")).isZero();

    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isEqualTo(ExitCode.BLOCKED);

    assertThat(out)
        .contains(
            "  ✗ conflict   configmap/demo/web-settings  (owned by release demo/other; never taken"
                + " over)");
    assertThat(err)
        .contains("capstan: release demo/web has unresolved conflicts; nothing was written");
    assertThat(run("release", "plan", "-f", "web-v1.yaml")).isEqualTo(ExitCode.BLOCKED);
    assertThat(run("release", "list", "-n", "demo")).isZero();
    assertThat(out).doesNotContain("web  ");
  }

  @Test
  void badFlagsAndFilesGiveOneClearLineAndExitCode2() throws IOException {
    assertThat(run("release", "cast", "-f", "missing.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(err).isEqualTo("capstan: -f: no such file: 'missing.yaml'\n");

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "--timeout", "soon"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err.lines().findFirst())
        .contains(
            "capstan: Invalid value for option '--timeout': must be a positive duration such as 90s,"
                + " 15m or 1h30m: 'soon'");

    assertThat(run("release", "cast", "-f", "web-v1.yaml", "-o", "yaml"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .startsWith("capstan: Invalid value for option '--output': expected one of [text, json]");

    Files.writeString(
        dir.resolve("bad.yaml"),
        "apiVersion: capstan.dev/v1\nkind: Release\nmetadata: {name: Web}\n");
    assertThat(run("release", "cast", "-f", "bad.yaml")).isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: bad.yaml: metadata: release name must be a DNS-1123 label of at most 53"
                + " characters (lower-case alphanumerics and '-', starting and ending with an"
                + " alphanumeric): 'Web'\n");

    assertThat(run("release", "rollback", "web", "-n", "demo", "--to", "-1"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(run("release", "frobnicate")).isEqualTo(ExitCode.INVALID);
    assertThat(err).startsWith("capstan: Unmatched argument at index 1: 'frobnicate'");
    assertThat(Files.exists(dir.resolve(".capstan/state.json"))).isTrue();
    assertThat(run("release", "list", "-n", "demo", "--all")).isZero();
    assertThat(out.lines()).hasSize(1);
  }

  @Test
  void aHeldLeaseGivesExitCode4() throws IOException {
    assertThat(run("release", "cast", "-f", "web-v1.yaml")).isZero();
    Path state = dir.resolve(".capstan/state.json");
    ObjectMapper mapper = new ObjectMapper();
    var root = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(state.toFile());
    var cluster =
        dev.capstan.release.memory.InMemoryCluster.importState(
            mapper.writeValueAsBytes(root.get("releases")));
    java.time.Instant now = java.time.Instant.now();
    cluster.putLease(
        "demo", "web", new dev.capstan.release.model.Lease("ci-job-42", now, now.plusSeconds(600)));
    root.set("releases", mapper.readTree(cluster.exportState()));
    mapper.writeValue(state.toFile(), root);

    assertThat(run("release", "cast", "-f", "web-v2.yaml", "--yes")).isEqualTo(ExitCode.LOCKED);
    assertThat(err).contains("capstan: release demo/web is locked by ci-job-42 until");
  }

  @Test
  void demoRunsTheReleaseAndThePlatformUpdateDemos() {
    assertThat(run("demo")).isZero();

    assertThat(out)
        .contains("== 7. History, newest first")
        .contains("== Platform update: MCP Runtime v0.4.0 -> v0.5.0 (runtime-api never gets ready)")
        .contains("rolled-back")
        .contains("Manual recovery commands")
        .contains("\"dryRun\": false");
    assertThat(Files.exists(dir.resolve(".capstan"))).isFalse();
  }
}
