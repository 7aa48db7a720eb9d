package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan __complete -- WORD...}, what the completion scripts ask on TAB: the candidates for
 * the last word, from the command tree and from the cluster the words choose, one a line; it writes
 * nothing and never fails.
 */
class CompleteCommandTest {
  @TempDir Path dir;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void aHomeWithoutKubeconfig() throws IOException {
    env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
    env.put("WEB_DB_PASSWORD", "pw");
  }

  private List<String> complete(String... words) {
    List<String> args = new ArrayList<>(List.of("__complete", "--"));
    args.addAll(List.of(words));
    CliRun run = CliRun.of(Terminal.none(), env::get, dir, args.toArray(String[]::new));
    assertThat(run.code()).isZero();
    assertThat(run.err()).isEmpty();
    return run.out().lines().toList();
  }

  @Test
  void commandsOptionsAndFixedValuesComeFromTheTree() {
    assertThat(complete(""))
        .containsExactly(
            "demo", "release", "update", "controller", "help", "completion", "version");
    assertThat(complete("release", "l")).containsExactly("list", "ls");
    assertThat(complete("release", "list", "--all"))
        .containsExactlyInAnyOrder("--all", "--all-namespaces");
    assertThat(complete("release", "get", "-o", ""))
        .containsExactly("text", "json", "yaml", "name", "wide");
    assertThat(complete("release", "cast", "-f", "")).containsExactly(CompleteCommand.FILES);
    assertThat(complete("--kubeconfig", "")).containsExactly(CompleteCommand.FILES);
    assertThat(complete("completion", "")).containsExactly("bash", "zsh", "fish");
  }

  @Test
  void releaseNamesAndNamespacesComeFromTheClusterTheWordsChoose() throws IOException {
    Files.copy(Path.of("../examples/releases/web-v1.yaml"), dir.resolve("web-v1.yaml"));
    CliRun cast =
        CliRun.of(
            Terminal.none(),
            env::get,
            dir,
            "--state",
            "s.json",
            "release",
            "cast",
            "-f",
            "web-v1.yaml",
            "--yes");
    assertThat(cast.code()).as(cast.err()).isZero();

    assertThat(complete("--state", "s.json", "release", "get", "-n", "demo", ""))
        .containsExactly("web");
    assertThat(complete("--state", "s.json", "release", "uninstall", "-n", "demo", "w"))
        .containsExactly("web");
    assertThat(complete("--state", "s.json", "release", "cast", "-n", "demo", "--release", ""))
        .containsExactly("web");
    assertThat(complete("--state", "s.json", "release", "cast", "--release", ""))
        .as("the namespace of the words so far: default, which has none")
        .isEmpty();
    assertThat(complete("--state", "s.json", "release", "list", "-n", ""))
        .containsExactly("default", "demo");
    assertThat(complete("--state", "s.json", "release", "import-helm", "")).isEmpty();
  }

  @Test
  void contextsComeFromTheKubeconfig() throws IOException {
    Path kubeconfig =
        Files.writeString(
            dir.resolve("kubeconfig"),
            """
            apiVersion: v1
            kind: Config
            clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
            users: [{name: u, user: {token: t}}]
            contexts: [{name: prod, context: {cluster: c, user: u}}, {name: staging, context: {cluster: c, user: u}}]
            current-context: prod
            """);

    assertThat(complete("--kubeconfig", kubeconfig.toString(), "release", "list", "--context", ""))
        .containsExactly("prod", "staging");
    env.put("KUBECONFIG", kubeconfig.toString());
    assertThat(complete("--kube-context", "st")).containsExactly("staging");
  }

  @Test
  void itWritesNothingAndAClusterItCannotReachGivesNoNames() throws IOException {
    assertThat(complete("release", "get", "-n", "demo", "")).isEmpty();
    assertThat(dir.resolve(".capstan")).as("no state file created by a TAB").doesNotExist();

    env.put("KUBECONFIG", RefusingKubeconfig.write(dir).toString());
    assertThat(complete("release", "get", "")).isEmpty();
    assertThat(complete("release", "list", "-n", "")).isEmpty();
  }
}
