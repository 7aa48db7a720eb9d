package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code release cast --supersede} refuses before anything is sent: a saved plan (the yielded
 * revision would make it stale) and a database store (it carries no request to yield). The protocol
 * itself: {@code SupersedeCliOnKubernetesIT}, {@code LeaseYieldTest}.
 */
class SupersedeCliTest {
  @TempDir Path dir;
  private String out = "";
  private String err = "";

  @BeforeEach
  void files() throws IOException {
    // no command below reaches the cluster: port 1 refuses anyway
    RefusingKubeconfig.write(dir);
    Files.writeString(
        dir.resolve("web.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {k: v}\n");
  }

  private int run(String... args) {
    List<String> all = new ArrayList<>(List.of("--kubeconfig", "kubeconfig"));
    all.addAll(List.of(args));
    CliRun run =
        CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, all.toArray(String[]::new));
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void withASavedPlanItIsRefusedWithExitCode2() {
    assertThat(
            run(
                "release",
                "cast",
                "web",
                "-n",
                "demo",
                "-f",
                "web.yaml",
                "--yes",
                "--supersede",
                "--plan",
                "web.plan.json"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: --supersede with --plan: the cast that yields records a failed revision,"
                + " which makes the saved plan stale; cast the release file with --supersede, or"
                + " wait for the holder with --wait\n");
    assertThat(out).isEmpty();
  }

  @Test
  void onADatabaseStoreItIsRefusedWithExitCode2() {
    String h2 = "jdbc:h2:" + dir.resolve("records").toAbsolutePath();

    assertThat(
            run(
                "release",
                "cast",
                "web",
                "-n",
                "demo",
                "-f",
                "web.yaml",
                "--yes",
                "--supersede",
                "--store",
                h2,
                "--store-migrate"))
        .isEqualTo(ExitCode.INVALID);
    assertThat(err)
        .isEqualTo(
            "capstan: installed the Capstan schema in "
                + h2
                + " (version 3)\n"
                + "capstan: --supersede: the database store (--store) carries no request to yield a"
                + " release's lease; queue behind the cast holding it with --wait instead\n");
    assertThat(out).isEmpty();
  }
}
