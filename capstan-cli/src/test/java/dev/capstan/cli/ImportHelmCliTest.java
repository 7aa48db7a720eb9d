package dev.capstan.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code capstan release import-helm} outside a Kubernetes cluster; the import itself is tested on
 * the real control plane with real Helm in release-helm's {@code HelmImportIT}.
 */
class ImportHelmCliTest {
  @TempDir Path dir;

  private String out = "";
  private String err = "";

  private int run(String... args) {
    CliRun run = CliRun.of(Terminal.none(), Map.<String, String>of()::get, dir, args);
    out = run.out();
    err = run.err();
    return run.code();
  }

  @Test
  void importHelmOnTheInMemoryClusterIsRefusedAskingForAKubeconfig() {
    assertThat(run("--state", "state.json", "release", "import-helm", "shop", "-n", "shop"))
        .isEqualTo(ExitCode.INVALID);

    assertThat(out).isEmpty();
    assertThat(err)
        .isEqualTo(
            "capstan: import-helm reads Helm's records from a Kubernetes cluster, not the"
                + " in-memory cluster (state in "
                + dir.resolve("state.json")
                + "): pass --kubeconfig FILE\n");
  }

  @Test
  void importHelmNeedsTheReleaseName() {
    assertThat(run("release", "import-helm", "-n", "shop")).isEqualTo(ExitCode.INVALID);

    assertThat(err)
        .startsWith("capstan: Missing required parameter: 'NAME'\n")
        .contains("Try 'capstan release import-helm --help'.");
  }
}
