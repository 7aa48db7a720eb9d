package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.capstan.common.InputLimits;
import dev.capstan.common.StrictDocuments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -o yaml} prints the same tree as {@code -o json}, readable by YAML 1.1 and 1.2 readers.
 */
class YamlOutputCliTest {
  @TempDir Path dir;

  private CliRun run(String... args) {
    return CliRun.of(Terminal.none(), Map.of("PW", "s3cret")::get, dir, args);
  }

  private static Object tree(String text) {
    List<Object> docs =
        new java.util.ArrayList<>(StrictDocuments.readYaml(text, InputLimits.oneDocument()));
    assertThat(docs).hasSize(1);
    return docs.get(0);
  }

  @Test
  void everyDocumentCommandPrintsTheJsonTreeAsYaml() throws IOException {
    Files.writeString(
        dir.resolve("web.yaml"),
        """
        apiVersion: capstan.dev/v1
        kind: Release
        metadata: {name: web, namespace: demo, version: "1.10"}
        spec:
          configMaps:
          - {name: flags, data: {enabled: "yes", mode: "0644", empty: "", none: "~", on: "on"}}
          secrets:
          - {name: db, fromEnv: {password: PW}}
        """,
        UTF_8);
    assertThat(run("release", "cast", "-f", "web.yaml", "--yes").code()).isZero();

    for (List<String> command :
        List.of(
            List.of("release", "get", "web", "-n", "demo"),
            List.of("release", "list", "-n", "demo"),
            List.of("release", "history", "web", "-n", "demo"),
            List.of("release", "plan", "-f", "web.yaml"),
            List.of("release", "cast", "-f", "web.yaml", "--dry-run"))) {
      CliRun json = run(with(command, "-o", "json"));
      CliRun yaml = run(with(command, "-o", "yaml"));

      assertThat(yaml.code()).as("%s", command).isZero().isEqualTo(json.code());
      assertThat(yaml.out()).doesNotStartWith("{").doesNotStartWith("[").doesNotContain("s3cret");
      assertThat(tree(yaml.out())).as("%s", command).isEqualTo(tree(json.out()));
    }
    String get = run("release", "get", "web", "-n", "demo", "-o", "yaml").out();
    // quoted: a YAML 1.1 reader would read 1.10 as a number
    assertThat(get).contains("\nversion: '1.10'\n").startsWith("namespace: demo\nname: web\n");
  }

  @Test
  void updatePrintsItsReportAsYamlToo() throws IOException {
    Files.copy(Path.of("../examples/platform/v0.5.0.yaml"), dir.resolve("v0.5.0.yaml"));

    CliRun json = run("update", "--release-manifest", "v0.5.0.yaml", "--dry-run", "-o", "json");
    CliRun yaml = run("update", "--release-manifest", "v0.5.0.yaml", "--dry-run", "-o", "yaml");

    assertThat(yaml.code()).isZero();
    assertThat(yaml.out()).contains("dryRun: true\n");
    assertThat(tree(yaml.out())).isEqualTo(tree(json.out()));
  }

  @Test
  void stringsAYaml11ReaderWouldReadOtherwiseAreQuoted() {
    Map<String, Object> tree = new java.util.LinkedHashMap<>();
    for (String s :
        List.of(
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "~",
            "null",
            "",
            "0644",
            "0x1F",
            "1.10",
            "1e3",
            "12:30:45",
            ".inf",
            "2026-12-01",
            "true",
            "42")) {
      tree.put("k" + tree.size(), s);
    }
    tree.put("plain", "ghcr.io/acme/web:1.0.0");
    tree.put("number", 42);
    tree.put("flag", true);

    String yaml = ReleaseOutput.yaml(tree);

    assertThat(tree(yaml)).isEqualTo(tree);
    assertThat(yaml.lines().filter(l -> l.startsWith("k")))
        .allSatisfy(line -> assertThat(line).matches("k[0-9]+: '.*'"));
    assertThat(yaml)
        .contains("\nplain: ghcr.io/acme/web:1.0.0\n")
        .contains("\nnumber: 42\n")
        .endsWith("\nflag: true\n");
  }

  private static String[] with(List<String> command, String... more) {
    return java.util.stream.Stream.concat(command.stream(), java.util.Arrays.stream(more))
        .toArray(String[]::new);
  }
}
