package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code --kubeconfig}, {@code --context} or {@code --store} the command line works on the
 * in-memory cluster, {@code $KUBECONFIG} or not; with {@code $KUBECONFIG} set it says so on
 * standard error, once, and the way it names to reach the cluster does reach it.
 */
class InMemoryDefaultCliTest {
  private static final String NOTE =
      "capstan: working on the in-memory cluster in .capstan/state.json; $KUBECONFIG is read only"
          + " with --kubeconfig FILE or --context NAME (pass --state FILE to choose the in-memory"
          + " cluster without this note)\n";

  @TempDir Path dir;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void kubeconfigOfAClusterThatRefuses() throws IOException {
    env.put("KUBECONFIG", RefusingKubeconfig.write(dir).toString());
  }

  private CliRun run(String... args) {
    return CliRun.of(Terminal.none(), env::get, dir, args);
  }

  @Test
  void withKubeconfigSetTheInMemoryDefaultSaysWhereItWorks() {
    CliRun run = run("release", "list", "-n", "demo");

    assertThat(run.code()).isZero();
    assertThat(run.err()).isEqualTo(NOTE);
    assertThat(run.out())
        .isEqualTo(run("--state", ".capstan/state.json", "release", "list", "-n", "demo").out());
    assertThat(dir.resolve(".capstan")).isDirectory();
  }

  @Test
  void anInMemoryClusterChosenOrNoKubeconfigGivesNoNote() {
    assertThat(run("--state", "s.json", "release", "list", "-n", "demo").err()).isEmpty();

    env.put("CAPSTAN_STATE", dir.resolve("t.json").toString());
    assertThat(run("release", "list", "-n", "demo").err()).isEmpty();

    env.clear();
    assertThat(run("release", "list", "-n", "demo").err()).isEmpty();
  }

  @Test
  void theContextOptionTheNoteNamesReadsKubeconfig() {
    CliRun run = run("--context", "nosuch", "release", "list", "-n", "demo");

    assertThat(run.code()).isEqualTo(ExitCode.INVALID);
    assertThat(run.err())
        .isEqualTo(
            "capstan: kubeconfig "
                + dir.resolve("kubeconfig")
                + " has no context 'nosuch'; its contexts are [ctx]\n");
  }
}
