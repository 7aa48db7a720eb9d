package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which cluster a command works on, as kubectl chooses: {@code $KUBECONFIG} alone (a list of files)
 * or {@code ~/.kube/config} is the Kubernetes cluster it names; the in-memory cluster only when
 * asked for ({@code --in-memory}, {@code --state}, {@code $CAPSTAN_STATE}) or when no kubeconfig
 * exists at all. The kubeconfigs here name a server on a closed loopback port: a command that
 * reaches for it fails at once, in one line naming it, with nothing sent. Every command that writes
 * says which cluster it works on.
 */
class ClusterChoiceCliTest {
  private static final String REFUSED =
      "capstan: cannot reach the API server https://127.0.0.1:1 of context 'ctx': the connection"
          + " was refused; nothing was sent\n";

  @TempDir Path dir;
  private Path home;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void aHomeWithoutKubeconfig() throws IOException {
    home = Files.createDirectories(dir.resolve("home"));
    env.put("HOME", home.toString());
    Files.writeString(
        dir.resolve("settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n");
  }

  private CliRun run(String... args) {
    return CliRun.of(Terminal.none(), env::get, dir, args);
  }

  @Test
  void kubeconfigAloneIsTheClusterAndAClosedPortFailsAtOnceNamingIt() throws IOException {
    env.put("KUBECONFIG", RefusingKubeconfig.write(dir).toString());

    long start = System.nanoTime();
    CliRun run = run("release", "list", "-n", "demo");
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(run.code()).isEqualTo(ExitCode.FAILED);
    assertThat(run.err()).isEqualTo(REFUSED);
    assertThat(run.out()).isEmpty();
    assertThat(took).isLessThan(Duration.ofSeconds(2));
    assertThat(dir.resolve(".capstan")).doesNotExist();
  }

  @Test
  void theHomeKubeconfigIsTheClusterWhenKubeconfigIsNotSet() throws IOException {
    Files.createDirectories(home.resolve(".kube"));
    Files.move(RefusingKubeconfig.write(dir), home.resolve(".kube").resolve("config"));

    CliRun run = run("release", "cast", "app", "-n", "demo", "-f", "settings.yaml", "--yes");

    assertThat(run.code()).isEqualTo(ExitCode.FAILED);
    assertThat(run.err())
        .isEqualTo(
            "capstan: working on the Kubernetes context ctx (https://127.0.0.1:1)\n" + REFUSED);
  }

  @Test
  void aKubeconfigListIsReadPassingOverFilesThatDoNotExist() throws IOException {
    Path refusing = RefusingKubeconfig.write(dir);
    env.put(
        "KUBECONFIG",
        dir.resolve("missing").toString() + File.pathSeparator + refusing + File.pathSeparator);

    assertThat(run("release", "list", "-n", "demo").err()).isEqualTo(REFUSED);

    env.put("KUBECONFIG", dir.resolve("missing").toString());
    CliRun none = run("release", "list", "-n", "demo");
    assertThat(none.code()).isEqualTo(ExitCode.INVALID);
    assertThat(none.err())
        .isEqualTo(
            "capstan: $KUBECONFIG names no file that exists: '"
                + dir.resolve("missing")
                + "'; pass --kubeconfig FILE, or --in-memory for the in-memory cluster\n");
  }

  @Test
  void theInMemoryClusterWhenAskedForWhateverKubeconfigExists() throws IOException {
    env.put("KUBECONFIG", RefusingKubeconfig.write(dir).toString());

    CliRun cast =
        run("--in-memory", "release", "cast", "app", "-n", "demo", "-f", "settings.yaml", "--yes");
    assertThat(cast.code()).as(cast.err()).isZero();
    assertThat(cast.err())
        .startsWith(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n");
    assertThat(run("--state", ".capstan/state.json", "release", "list", "-n", "demo").out())
        .startsWith("NAME  REVISION  STATUS    VERSION  UPDATED\napp   1         deployed");

    env.put("CAPSTAN_STATE", ".capstan/state.json");
    CliRun list = run("release", "list", "-n", "demo");
    assertThat(list.err()).isEmpty();
    assertThat(list.out()).contains("app   1         deployed");
    // the flag of a cluster wins over the variable of the in-memory one
    assertThat(run("--context", "ctx", "release", "list", "-n", "demo").err()).isEqualTo(REFUSED);
  }

  @Test
  void withoutAnyKubeconfigTheInMemoryClusterIsTheDefault() {
    CliRun cast = run("release", "cast", "app", "-n", "demo", "-f", "settings.yaml", "--yes");

    assertThat(cast.code()).as(cast.err()).isZero();
    assertThat(cast.err())
        .startsWith(
            "capstan: working on the in-memory cluster (state in "
                + dir.resolve(".capstan/state.json")
                + ")\n");
    CliRun plan = run("release", "plan", "app", "-n", "demo", "-f", "settings.yaml");
    assertThat(plan.err()).as("a command that writes nothing says nothing").isEmpty();
    env.remove("HOME");
    assertThat(run("release", "list", "-n", "demo").out()).contains("app   1         deployed");
  }

  @Test
  void choicesThatConflictAreRefusedBeforeAnythingIsRead() throws IOException {
    Path kubeconfig = RefusingKubeconfig.write(dir);

    CliRun both =
        run("--in-memory", "--kubeconfig", kubeconfig.toString(), "release", "list", "-n", "demo");
    assertThat(both.code()).isEqualTo(ExitCode.INVALID);
    assertThat(both.err())
        .isEqualTo(
            "capstan: --in-memory chooses the in-memory cluster and --kubeconfig a Kubernetes"
                + " cluster; pass one of them\n");
    CliRun context = run("--state", "s.json", "--context", "ctx", "release", "list");
    assertThat(context.err())
        .isEqualTo(
            "capstan: --state chooses the in-memory cluster and --context a Kubernetes cluster;"
                + " pass one of them\n");
    CliRun noConfig = run("--context", "ctx", "release", "list");
    assertThat(noConfig.code()).isEqualTo(ExitCode.INVALID);
    assertThat(noConfig.err())
        .isEqualTo(
            "capstan: --context needs a kubeconfig, and there is none: $KUBECONFIG is not set and '"
                + home.resolve(".kube/config")
                + "' does not exist; pass --kubeconfig FILE\n");
  }

  @Test
  void aContextTheKubeconfigLacksIsRefusedNamingTheOnesItHas() throws IOException {
    env.put("KUBECONFIG", RefusingKubeconfig.write(dir).toString());

    CliRun run = run("--context", "nosuch", "release", "list", "-n", "demo");

    assertThat(run.code()).isEqualTo(ExitCode.INVALID);
    assertThat(run.err())
        .isEqualTo(
            "capstan: kubeconfig "
                + dir.resolve("kubeconfig")
                + " has no context 'nosuch'; its contexts are [ctx]\n");
  }
}
